"""Limits of the memory object (docs/api-memory.md), in one place for the model columns, the
serializers that enforce them and the services that must stay within them."""

# Longest content (characters, after trimming): a memory is a note, not a document.
MAX_CONTENT_CHARS = 50_000
# Longest key (characters); a derived key `<category>_<12 hex>` stays far below it.
MAX_KEY_CHARS = 128
# Most tags on one memory (tags) …
MAX_TAGS = 20
# … and the longest tag (characters).
MAX_TAG_CHARS = 64
# Most entity names on one memory (names) …
MAX_ENTITIES = 20
# … and the longest entity name (characters).
MAX_ENTITY_CHARS = 100
# Largest `attributes` object (bytes of its serialized JSON, UTF-8).
MAX_ATTRIBUTES_BYTES = 16 * 1024
# Longest `event_time` text a client may send (characters): a date or a phrase like "last week".
MAX_EVENT_TIME_CHARS = 200
# Longest emotion label (characters): a label of memories.emotions, or any free word.
MAX_EMOTION_CHARS = 32
# Longest Idempotency-Key a client may send (characters; the column's length).
MAX_IDEMPOTENCY_KEY_CHARS = 255
