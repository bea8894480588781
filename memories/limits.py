"""Limits of the memory object (docs/api-memory.md), in one place for the
serializers that enforce them and the services that must stay within them."""

MAX_CONTENT_CHARS = 50_000  # characters, after trimming
MAX_KEY_CHARS = 128
MAX_TAGS = 20
MAX_TAG_CHARS = 64
MAX_ENTITIES = 20
MAX_ENTITY_CHARS = 100
MAX_ATTRIBUTES_BYTES = 16 * 1024  # serialized JSON, UTF-8
MAX_EVENT_TIME_CHARS = 200
