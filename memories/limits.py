"""Limits of the memory object and of the memory endpoints' parameters (docs/api-memory.md), in one
place for the model columns, the serializers and forms that enforce them and the services that
must stay within them."""

from memoryproject.core.page_limits import DEFAULT_PAGE_LIMIT

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
# Deepest `attributes` object (levels; the object itself is 1). Well inside the JSON bound of every
# parser (memoryproject.core.jsonbounds.JSON_MAX_DEPTH), so an export of it — attributes sit at
# level 4 there — reads back.
MAX_ATTRIBUTES_DEPTH = 32
# Longest `event_time` text a client may send (characters): a date or a phrase like "last week".
MAX_EVENT_TIME_CHARS = 200
# Longest emotion label (characters): a label of memories.emotions, or any free word.
MAX_EMOTION_CHARS = 32
# Longest Idempotency-Key a client may send (characters; the column's length).
MAX_IDEMPOTENCY_KEY_CHARS = 255

# --- the overviews, recall, compaction and export (their serializers and the UI's forms) ---

# Memories recall lists when the caller gives no `limit`; keeps the prompt and the query bounded
# (the default page size of every list, memories).
RECALL_DEFAULT_LIMIT = DEFAULT_PAGE_LIMIT
# Longest `q` recall accepts (characters): a topic, not a document.
RECALL_MAX_QUERY_CHARS = 1000
# Longest `mode` / `intent` / `mood` label (characters).
RECALL_MAX_LABEL_CHARS = 100
# Largest `max_chars` recall accepts (characters); a prompt block, not a dump.
RECALL_MAX_CHARS_LIMIT = 1_000_000

# Periods /memory/timeline groups by (PostgreSQL date_trunc units).
TIMELINE_PERIODS = ("hour", "day", "week", "month", "year")

# /memory/contradictions window when `within` is not given (a duration, as clients write it).
CONTRADICTIONS_DEFAULT_WITHIN = "1d"

# /memory/compact limits (docs/api-memory.md, "Compaction").
COMPACT_DEFAULT_OLDER_THAN = "30d"  # a duration, as clients write it
COMPACT_MAX_CLUSTERS = 50
COMPACT_MIN_CLUSTER_SIZE = 2
COMPACT_MAX_MIN_CLUSTER_SIZE = 20

# What GET /mind/export can write.
EXPORT_FORMATS = ("json", "csv")
