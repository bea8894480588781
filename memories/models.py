"""Memories, their audit trail and idempotency records."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorCombinable, SearchVectorField
from django.db import models
from django.db.models import Case, Func, Value, When
from django.db.models.functions import Cast
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from memories.limits import (
    MAX_EMOTION_CHARS,
    MAX_ENTITY_CHARS,
    MAX_IDEMPOTENCY_KEY_CHARS,
    MAX_KEY_CHARS,
    MAX_TAG_CHARS,
)
from memoryproject.core.public_ids import new_memory_id
from minds.models import Mind
from pipelinelog.constants import TURN_ID_MAX_LENGTH

# The unique constraint behind "one memory per (mind, category, key)"; a store that races another
# recognises its IntegrityError by this name (memories.services.memory).
UNIQUE_KEY_CONSTRAINT = "memory_unique_mind_category_key"
# Recall order: priority, then most recently updated, then id. The index memory_recall_order_idx
# is (mind, *RECALL_ORDER), so recall reads its rows from the index in this order.
RECALL_ORDER = ("priority_rank", "-updated_at", "id")


class ArrayToTsvector(SearchVectorCombinable, Func):
    """`array_to_tsvector(text[])`: each element one lexeme, as written (immutable, unlike
    array_to_string, so a generated column may use it)."""

    function = "array_to_tsvector"
    output_field = SearchVectorField()


# Every embedder produces vectors of this many dimensions (all-MiniLM-L6-v2's size). The HNSW
# index needs a fixed dimension; changing it means a migration and `manage.py reembed`.
EMBEDDING_DIMENSIONS = 384


class Category(models.TextChoices):
    IDENTITY = "identity"
    PREFERENCE = "preference"
    FACT = "fact"
    PROJECT = "project"
    SKILL = "skill"
    MISTAKE = "mistake"
    CONTEXT = "context"
    NOTE = "note"


class Priority(models.TextChoices):
    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    CRITICAL = "critical"


class Source(models.TextChoices):
    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    SYSTEM = "system"


class Speaker(models.TextChoices):
    USER = "user"
    AGENT = "agent"


class EventPrecision(models.TextChoices):
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    QUARTER = "quarter"
    YEAR = "year"


# Recall order: critical first. Kept in the database (a generated column) so the recall
# index can deliver rows already in order.
# The attribute of a compaction summary that lists the memories it was made from (compaction
# writes it, erasure reads it, memory_summary_idx indexes the summaries by it).
COMPACTED_FROM = "compacted_from"

PRIORITY_RANK = {Priority.CRITICAL: 0, Priority.HIGH: 1, Priority.NORMAL: 2, Priority.LOW: 3}


def current_filter(now) -> models.Q:
    """Not expired at `now`: expired memories leave recall, search, lists and overviews but stay stored."""
    return models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=now)


# current_filter as SQL, for the selectors' raw queries: `now` goes in as the named parameter %(now)s.
CURRENT_SQL = "(expires_at IS NULL OR expires_at > %(now)s)"


class Memory(models.Model):
    """What an agent or human stores: the current state the agent works with."""

    id = models.CharField(primary_key=True, max_length=40, default=new_memory_id, editable=False)
    # Indexed by memory_count_idx below (mind first), so no separate index of its own.
    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="memories", db_index=False)
    category = models.CharField(max_length=16, choices=Category.choices)
    key = models.CharField(max_length=MAX_KEY_CHARS)
    content = models.TextField()
    # sha256 hex of `content`: the keyless-key rule and "is this the same version" checks.
    content_hash = models.CharField(max_length=64)
    tags = ArrayField(models.CharField(max_length=MAX_TAG_CHARS), default=list, blank=True)
    priority = models.CharField(max_length=8, choices=Priority.choices, default=Priority.NORMAL)
    priority_rank = models.GeneratedField(
        expression=Case(
            *(When(priority=value, then=Value(rank)) for value, rank in PRIORITY_RANK.items()),
            default=Value(len(PRIORITY_RANK)),
        ),
        output_field=models.SmallIntegerField(),
        db_persist=True,
    )
    source = models.CharField(max_length=8, choices=Source.choices)
    speaker = models.CharField(max_length=8, choices=Speaker.choices)
    verified = models.BooleanField(default=False)
    verified_at = models.DateTimeField(null=True, blank=True)
    verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confidence = models.FloatField()
    salience = models.FloatField()
    # Whether a client gave the salience: a priority change moves only a salience nobody gave
    # (to the new priority's default), never one a client chose.
    salience_given = models.BooleanField(default=False, db_default=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    # Names as given by the caller; the synapse model resolves them to the mind's entities.
    entities = ArrayField(models.CharField(max_length=MAX_ENTITY_CHARS), default=list, blank=True)
    event_time = models.DateTimeField(null=True, blank=True)
    event_precision = models.CharField(max_length=8, choices=EventPrecision.choices, blank=True, default="")
    emotion = models.CharField(max_length=MAX_EMOTION_CHARS, blank=True, default="")
    attributes = models.JSONField(default=dict, blank=True)
    turn_id = models.CharField(max_length=TURN_ID_MAX_LENGTH, blank=True, default="")
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    # Full text in three configurations at once: `simple` finds every word as written (names,
    # German compounds like "insolvenz"), `english` and `german` add stemming ("deployed" ↔ "deploy").
    # The key's words (split at `_`, `-`, `.`) and each tag as written are searched too.
    search_vector = models.GeneratedField(
        expression=SearchVector("content", config="simple")
        + SearchVector("content", config="english")
        + SearchVector("content", config="german")
        + SearchVector("key", config="simple")
        + ArrayToTsvector(Cast("tags", ArrayField(models.TextField()))),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    # Not auto_now: imports keep the original times; services set them explicitly.
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    # When this server last wrote the row, whatever times the row carries: an import keeps the
    # file's `updated_at`, yet a client syncing with /memory/diff must still see the import.
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "memories"
        ordering = list(RECALL_ORDER[:-1])  # recall order, without the id tie-break
        constraints = [
            models.UniqueConstraint(fields=["mind", "category", "key"], name=UNIQUE_KEY_CONSTRAINT),
        ]
        indexes = [
            # Recall: the mind's memories in recall order, id last so that memories written in one
            # batch (same updated_at) need no sort either.
            models.Index(fields=["mind", *RECALL_ORDER], name="memory_recall_order_idx"),
            # Recall's header counts (current, verified) from the index alone: an index-only scan
            # reads a few narrow pages where the table's rows carry whole vectors.
            models.Index(fields=["mind"], include=["verified", "expires_at"], name="memory_count_idx"),
            # diff, timeline and lists by recency.
            models.Index(fields=["mind", "updated_at"], name="memory_mind_updated_idx"),
            # diff: what this server wrote since a time.
            models.Index(fields=["mind", "changed_at"], name="memory_mind_changed_idx"),
            models.Index(fields=["mind", "created_at"], name="memory_mind_created_idx"),
            models.Index(fields=["mind", "expires_at"], name="memory_mind_expires_idx"),
            # The mind's compaction summaries only (a few rows): deleting a memory finds the
            # summaries that quote it without reading the mind's other memories (erasure).
            models.Index(
                fields=["mind"], condition=models.Q(attributes__has_key=COMPACTED_FROM), name="memory_summary_idx"
            ),
            GinIndex(fields=["tags"], name="memory_tags_gin"),
            # Full text of one mind: the mind and the words in one GIN index (btree_gin), so a
            # common word is not looked up in every mind first (measured: docs/search.md). Every
            # text query filters by mind, so no GIN index on search_vector alone.
            GinIndex(fields=["mind", "search_vector"], name="memory_mind_search_gin"),
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.category}/{self.key}"

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    # Whether the memory's current content waits for promotion, as the row was read
    # (memories.selectors.memory.memories_of annotates it; a memory just created is pending):
    # None when unknown. The memory object asks the net for its knot only when this is not True.
    promotion_pending: bool | None = None


class PendingPromotion(models.Model):
    """A memory whose current content no knot of the long-term net holds yet: one row per memory,
    the one representation of "pending promotion" (docs/synapse-model.md §4).

    The database keeps it true for every writer, whatever path wrote the row (a store, a PATCH, a
    sync's bulk update, an import, raw SQL): triggers on the memories add or refresh the row when
    a memory is inserted or its content hash changes, and triggers on the net's links remove it
    when a link of that content is made and add it back when the link goes (synapses migration
    0006). The foreign key to the memory cascades in the database (migration 0011), so neither
    app's code deletes these rows.
    """

    memory = models.OneToOneField(
        Memory, primary_key=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="pending_row"
    )
    # The memory's mind (a copy, for the per-mind counts and sweeps; the memory's cascade removes it).
    mind = models.ForeignKey(Mind, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+", db_index=False)
    # The content version that waits (the memory's current content_hash).
    content_hash = models.CharField(max_length=64)
    # When this version began to wait: the transaction that wrote it.
    since = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["mind", "since"], name="pending_mind_since_idx")]

    def __str__(self) -> str:
        return f"{self.memory_id} since {self.since:%Y-%m-%d %H:%M}"


def pending_filter(now) -> models.Q:
    """Pending promotion at `now`, the one definition: not expired and the current content held by
    no knot. Parked versions (promotion failed too often; the net's PromotionAttempt) are pending
    too; /memory/health reports them apart as `parked`, and the promotion's selection leaves them out."""
    return current_filter(now) & models.Q(pending_row__isnull=False)


# pending_filter as SQL, for hand-written statements over one mind's pending memories: their FROM
# and WHERE, the pending table (alias `pending`, read by its (mind, since) index) joined to each
# memory (alias `memory`), not expired (CURRENT_SQL); `mind_id` and `now` are named parameters.
# tests/memories/test_pending_sql.py holds it to the same rows as pending_filter.
PENDING_MEMORIES_SQL = (
    f"{PendingPromotion._meta.db_table} pending JOIN {Memory._meta.db_table} memory ON memory.id = pending.memory_id"
    f" WHERE pending.mind_id = %(mind_id)s AND {CURRENT_SQL}"
)


class AuditAction(models.TextChoices):
    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"
    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    IMPORTED = "imported"
    PURGED = "purged"  # its earlier versions were erased (DELETE /memory/{id}/versions)


class MemoryAudit(models.Model):
    """Who changed which memory when, and which fields. Never the content: a deleted memory
    must leave nothing of itself behind."""

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="audit_rows")
    # Not a foreign key: the row outlives the memory (diff reports deleted ids from here).
    memory_id = models.CharField(max_length=40)
    action = models.CharField(max_length=12, choices=AuditAction.choices)
    # `user:<id>` or `agent:<key prefix>`.
    actor = models.CharField(max_length=40)
    changed_fields = ArrayField(models.CharField(max_length=32), default=list, blank=True)
    turn_id = models.CharField(max_length=TURN_ID_MAX_LENGTH, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["mind", "-created_at"], name="audit_mind_created_idx"),
            models.Index(fields=["mind", "action", "-created_at"], name="audit_mind_action_idx"),
            models.Index(fields=["memory_id"], name="audit_memory_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.memory_id} by {self.actor}"


class IdempotencyRecord(models.Model):
    """The first response to a request sent with an `Idempotency-Key`, replayed for 24 h."""

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=MAX_IDEMPOTENCY_KEY_CHARS)
    # sha256 of method, path and body: the same key with another request is a 409.
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["mind", "key"], name="idempotency_unique_mind_key")]
        indexes = [models.Index(fields=["created_at"], name="idempotency_created_idx")]

    def __str__(self) -> str:
        return f"{self.mind_id}:{self.key}"


class InstallationEmbedder(models.Model):
    """The one row naming the embedder this installation runs when SYNAPSE_EMBEDDER is unset.

    Written once, when a process first needs an embedder: the backend that made the stored
    vectors (an installation from before the default changed), else the default for new
    installations; `manage.py reembed --all` rewrites it after a switch (docs/embeddings.md).
    """

    # Always 1: the constraint keeps the table to one row.
    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    backend = models.CharField(max_length=40)  # a SYNAPSE_EMBEDDER value
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="installation_embedder_one_row")]

    def __str__(self) -> str:
        return self.backend
