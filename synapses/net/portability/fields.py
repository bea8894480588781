"""The net's sections of the export file: their names and the fields of each kind of row."""

from __future__ import annotations

# Rows of one net table fetched per round trip while streaming an export.
NET_EXPORT_CHUNK_ROWS = 500
# The sections the net writes into the export and reads back, in file order.
NET_SECTIONS = ("knots", "edges", "entities", "goals")

# The fields of each row in the file, besides `id` (and the knot's `presence` and `links`).
KNOT_FIELDS = (
    "memory_id", "content", "content_hash", "category", "observer", "emotion", "arousal", "attributes",
    "embedding", "embedding_model", "themes", "entities", "magnets", "event_time", "event_precision", "weight_raw",
    "weight_anchor", "activation_count", "created_at", "source_created_at",
)  # fmt: skip
PRESENCE_FIELDS = ("presence_base", "weight_present", "reinforced_at", "decayed_at", "is_active")
LINK_FIELDS = ("memory_id", "content_hash", "kind", "created_at")
EDGE_FIELDS = (
    "source", "target", "weight_raw", "weight_anchor", "layers", "shared_entities", "shared_themes",
    "time_distance", "cosine_initial", "layer_count", "created_at",
)  # fmt: skip
ENTITY_FIELDS = ("name", "aliases", "created_at")
GOAL_FIELDS = ("statement", "motivation", "active", "embedding", "embedding_model", "created_at", "updated_at")
# Fields a row may leave out (the model's default is taken).
OPTIONAL_FIELDS = {
    "emotion", "arousal", "attributes", "themes", "entities", "magnets", "event_time", "event_precision", "aliases",
    "shared_entities", "shared_themes", "time_distance", "cosine_initial", "embedding", "embedding_model",
    "links", "activation_count", "updated_at",
}  # fmt: skip
