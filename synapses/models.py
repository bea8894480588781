"""The long-term net: knots, their presence, edges, entities, goals and the memory–knot links.

Every row carries its mind (`mind_id`), and every reference between two mind tables includes
it at the database level (composite foreign keys added by the first migration next to unique
`(mind_id, id)` constraints), so the tables can be distributed by mind (docs/scaling.md).
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Lower
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from memories.models import EMBEDDING_DIMENSIONS, Category, EventPrecision, Memory, Speaker
from minds.models import Mind


class AliasesLower(models.Func):
    """`synapses_aliases_lower(aliases)`: the aliases lower-cased, an immutable SQL function
    (migration 0002), so an expression index can hold it."""

    function = "synapses_aliases_lower"
    output_field = ArrayField(models.TextField())


class Entity(models.Model):
    """Someone or something a mind's knots mention: the magnet of the entity layer."""

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False)
    name = models.CharField(max_length=100)
    aliases = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            # "Anna" and "anna" are one entity of a mind (a functional unique index).
            models.UniqueConstraint(F("mind"), Lower("name"), name="entity_unique_mind_lower_name"),
            models.UniqueConstraint(fields=["mind", "id"], name="entity_unique_mind_id"),
        ]
        indexes = [
            # Finds the entities one of whose aliases, lower-cased, is among a content's words
            # (`synapses_aliases_lower(aliases) && …`), so promotion's name matching costs the same whatever
            # the number of entities. The immutable SQL function comes with migration 0002.
            GinIndex(AliasesLower(F("aliases")), name="entity_aliases_lower_gin"),
        ]

    def __str__(self) -> str:
        return self.name


class Knot(models.Model):
    """One promoted version of a memory. Its content never changes after creation."""

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False)
    # The memory it was promoted from; deleting the memory deletes its knots (and their edges).
    # Indexed by knot_unique_memory_version (mind, memory, …).
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+", db_index=False)
    content = models.TextField()
    # sha256 hex of `content`: with `memory`, unique, so one memory version never gets two knots.
    content_hash = models.CharField(max_length=64)
    category = models.CharField(max_length=16, choices=Category.choices)
    observer = models.CharField(max_length=8, choices=Speaker.choices)
    emotion = models.CharField(max_length=32, blank=True, default="")
    # Intensity of the emotion, 0..1 (null: not given).
    arousal = models.FloatField(null=True, blank=True)
    attributes = models.JSONField(default=dict, blank=True)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    embedding_model = models.CharField(max_length=200)
    # The memory's tags, frozen, sorted, de-duplicated.
    themes = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    # Ids of the mind's entities the knot mentions (an array: the GIN index finds shared ones).
    entities = ArrayField(models.BigIntegerField(), default=list, blank=True)
    # What promotion found and by which rule (docs/synapse-model.md, "Magnets found in the
    # content"): {"language": "en"|"de"|"", "entities": [{"id", "name", "rule"}, …]} — on the knot,
    # because the pipeline log that also says it expires and is erased with deletions.
    # The database's default too: statements that insert knots by hand (the bench) need not name it.
    magnets = models.JSONField(default=dict, db_default=Value({}, output_field=models.JSONField()), blank=True)
    event_time = models.DateTimeField(null=True, blank=True)
    event_precision = models.CharField(max_length=8, choices=EventPrecision.choices, blank=True, default="")
    # Accumulator: salience at creation, + REINFORCEMENT_BOOST per use, unbounded (raw weight units).
    weight_raw = models.FloatField()
    # damp(weight_raw), 0..10: the reference of edges; decay never touches it.
    weight_anchor = models.FloatField()
    activation_count = models.PositiveIntegerField(default=1)
    search_vector = models.GeneratedField(
        expression=SearchVector("content", config="simple")
        + SearchVector("content", config="english")
        + SearchVector("content", config="german"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    created_at = models.DateTimeField(default=timezone.now)
    # When the memory this knot froze was created.
    source_created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["mind", "memory", "content_hash"], name="knot_unique_memory_version"),
            # Target of the composite references (edge → knot, presence → knot, link → knot).
            models.UniqueConstraint(fields=["mind", "id"], name="knot_unique_mind_id"),
        ]
        indexes = [
            HnswIndex(
                name="knot_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(fields=["entities"], name="knot_entities_gin"),
            GinIndex(fields=["themes"], name="knot_themes_gin"),
            models.Index(fields=["mind", "event_precision", "event_time"], name="knot_mind_time_idx"),
            # Full text of one mind in one GIN index (btree_gin), as for memories.
            GinIndex(fields=["mind", "search_vector"], name="knot_mind_search_gin"),
        ]

    def __str__(self) -> str:
        return f"knot {self.pk} of {self.memory_id}"


class KnotPresence(models.Model):
    """The changing half of a knot, in a narrow table of its own (docs/synapse-model.md §1).

    The daily decay rewrites every active row; next to the knot's vector no such update could be
    HOT and each would re-insert the row into the HNSW index. The table has fillfactor 50 (set by
    the migration) so that every updated row finds room on its page, and `weight_present` is in
    no index, which keeps the decay's updates HOT.
    """

    knot = models.OneToOneField(Knot, on_delete=models.CASCADE, primary_key=True, related_name="presence")
    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False)
    # The presence at reinforced_at, from which decay runs (weight units).
    presence_base = models.FloatField()
    # The current presence, materialised by the decay job; ranks recall (weight units).
    weight_present = models.FloatField()
    reinforced_at = models.DateTimeField()
    decayed_at = models.DateTimeField()
    is_active = models.BooleanField(default=True)

    class Meta:
        indexes = [models.Index(fields=["mind", "is_active"], name="presence_mind_active_idx")]

    def __str__(self) -> str:
        return f"presence of knot {self.knot_id}: {self.weight_present:.4f}"


class LinkKind(models.TextChoices):
    # The knot was created from this memory version.
    ORIGIN = "origin"
    # The memory matched an active knot of another memory: linked, nothing strengthened.
    DUPLICATE = "duplicate"
    # The memory matched an inactive knot, which came back at half presence.
    REACTIVATED = "reactivated"


class MemoryKnot(models.Model):
    """A memory version is promoted: it links to the knot that holds it.

    A memory is **pending** promotion while it has no link for its current `content_hash`. The
    link cascades from both sides: deleting the knot (because its own memory was deleted)
    deletes the links of the memories that were duplicates of it, and they are pending again.
    """

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False)
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+", db_index=False)
    # The memory's content_hash when it was promoted; a later edit leaves the link superseded.
    content_hash = models.CharField(max_length=64)
    knot = models.ForeignKey(Knot, on_delete=models.CASCADE, related_name="memory_links")
    kind = models.CharField(max_length=12, choices=LinkKind.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["mind", "memory", "content_hash"], name="memoryknot_unique_memory_version"),
        ]
        # /memory/health's last promotion of a mind: the newest link, read from the index's end.
        indexes = [models.Index(fields=["mind", "-created_at"], name="memoryknot_mind_created_idx")]

    def __str__(self) -> str:
        return f"{self.memory_id} → knot {self.knot_id} ({self.kind})"


class Edge(models.Model):
    """One direction of a connection between two knots of a mind; pairs are written both ways."""

    # No single-column constraints in the database (db_constraint=False): the composite
    # (mind_id, source_id) and (mind_id, target_id) references to knots (synapses migration 0001)
    # already check and cascade all three, and each constraint is a trigger check per inserted row
    # (docs/scaling.md, "Edges carry only the composite references"). The ORM keeps its joins and
    # its cascades.
    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False)
    # Indexed by edge_source_weight_idx (source first).
    source = models.ForeignKey(
        Knot, on_delete=models.CASCADE, related_name="edges_out", db_index=False, db_constraint=False
    )
    target = models.ForeignKey(Knot, on_delete=models.CASCADE, related_name="edges_in", db_constraint=False)
    # The §3 result before damping (raw weight units); a cache of the two knots' anchors.
    weight_raw = models.FloatField()
    # damp(weight_raw), 0..10: what spreading activation follows.
    weight_anchor = models.FloatField()
    # The firing layers, in the order entity, embedding, themes, timeline.
    layers = ArrayField(models.CharField(max_length=16))
    shared_entities = ArrayField(models.BigIntegerField(), default=list, blank=True)
    shared_themes = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    # Distance of the two time anchors in their precision's unit (null: the layer did not fire).
    time_distance = models.FloatField(null=True, blank=True)
    # Cosine of the two embeddings when the edge was formed.
    cosine_initial = models.FloatField(null=True, blank=True)
    layer_count = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # (mind, source, target) means (source, target): a knot has one mind. Citus wants the mind in it.
            models.UniqueConstraint(fields=["mind", "source", "target"], name="edge_unique_source_target"),
            models.CheckConstraint(condition=~Q(source=F("target")), name="edge_no_self_loop"),
        ]
        indexes = [models.Index(F("source"), F("weight_anchor").desc(), name="edge_source_weight_idx")]

    def __str__(self) -> str:
        return f"{self.source_id} → {self.target_id} ({self.weight_anchor:.3f})"


class Goal(models.Model):
    """What a mind strives for; bends what it notices (perception gravity)."""

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False)
    statement = models.TextField()
    # How strongly the mind pursues it, 0..1.
    motivation = models.FloatField()
    active = models.BooleanField(default=True)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(motivation__gte=0) & Q(motivation__lte=1), name="goal_motivation_0_1"),
        ]
        indexes = [models.Index(fields=["mind", "active"], name="goal_mind_active_idx")]

    def __str__(self) -> str:
        return self.statement[:60]


class PromotionAttempt(models.Model):
    """The failed promotions of one memory version, and whether it is parked.

    Written only when a promotion fails (a worker killed mid-run counts nothing: its transaction
    is rolled back and the memory is simply pending again). After PROMOTION_MAX_ATTEMPTS
    failures the version is parked: the sweeps leave it alone and /memory/health shows it. A new
    content hash starts afresh; deleting the memory deletes its rows.
    """

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False)
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+", db_index=False)
    # The content_hash of the version that failed.
    content_hash = models.CharField(max_length=64)
    # Failed promotions of this version so far (attempts).
    attempts = models.PositiveSmallIntegerField(default=0)
    # What the last failure said: the exception's type and message, cut.
    last_error = models.TextField(blank=True, default="")
    # When the version was given up on (null: it is retried by the next sweep).
    parked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["mind", "memory", "content_hash"], name="promotionattempt_unique_memory_version"
            ),
        ]
        indexes = [
            # /memory/health: the mind's parked versions, without reading the ones still retried.
            models.Index(
                fields=["mind", "-parked_at"], name="promotionattempt_parked_idx", condition=Q(parked_at__isnull=False)
            ),
        ]

    def __str__(self) -> str:
        state = "parked" if self.parked_at else "retrying"
        return f"{self.memory_id}: {self.attempts} failed ({state})"


class PendingUse(models.Model):
    """Uses of a memory version an answer used before it was promoted (POST /synapses/used with
    `memory_ids`; docs/synapse-model.md §6, "Uses of pending memories"). Applied, as the same
    number of reinforcements, to the knot that holds the version once it is promoted
    (synapses.upkeep.pending_uses), then deleted; a version replaced before its promotion leaves
    its uses unapplied (they were of other words). Deleting the memory deletes its rows.
    """

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="+", db_index=False)
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+", db_index=False)
    # The content_hash of the version the answer used.
    content_hash = models.CharField(max_length=64)
    # Reports that used it so far (uses): each is one reinforcement when it is applied.
    uses = models.PositiveIntegerField(default=0)
    # The answer's cosine to the memory at the last use (cosine).
    nearness = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["mind", "memory", "content_hash"], name="pendinguse_unique_memory_version"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id}: {self.uses} uses before promotion"


class DecayRun(models.Model):
    """One finished run of the daily decay (every mind's net at once): what /memory/health and the
    dashboard report as `last_decay_at`. Written in the decay's own transaction, so a run killed
    half-way leaves neither its updates nor its row."""

    # The run's `now`: the instant every active presence was decayed to.
    ran_at = models.DateTimeField()
    # The decay rate (1/day) and the minimum presence (weight units) it used.
    rate = models.FloatField()
    min_weight = models.FloatField()
    knots_decayed = models.PositiveBigIntegerField()
    knots_deactivated = models.PositiveBigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["-ran_at"], name="decayrun_ran_at_idx")]

    def __str__(self) -> str:
        decayed, deactivated = self.knots_decayed, self.knots_deactivated
        return f"decay at {self.ran_at:%Y-%m-%d %H:%M}: {decayed} knots, {deactivated} deactivated"
