"""The long-term net as a benchmark finds it: one mind of N knots, built with COPY, not through the API.

What one build writes, all in one mind (so the promotion, resonance and decay benches share it):

- **entities**: the corpus's names (people, surnames, places, projects, tools — bench/corpus.py),
  60 of them; a knot carries the ones its content names as whole words, so a few are carried by
  a large share of the knots (as a conversation's speakers are) and the rest by fewer.
- **memories**: `distinct` of them from the seeded corpus (`memory_specs`), as a store would
  write them (`memory_build`'s defaults), already promoted (a link for each). They carry no
  vector: their knots do, and nothing the net's benches measure reads a promoted memory's vector.
- **knots**, one per memory with the memory's content, category, tags as themes, its entities,
  the hashing embedder's vector, a weight from the memory's salience (`damp`), a creation time
  spread over the last two years, and for 70 % an event time within three years before it at a
  precision from minute to year (day the most common). A net larger than `distinct` repeats the
  base knots server-side as further versions of the same memories (another `content_hash`, the
  same vector, an empty content, so no text is indexed twice): for the decay bench at
  1,000,000, whose cost is the presence table alone.
- **presence** (`KnotPresence`): presence_base = the anchor, decayed by the days since a
  reinforcement within the last year; a tenth of the knots faded long before (reinforced so long
  ago that their presence is below MIN_WEIGHT) and are inactive.
- **memory–knot links** (`origin`) and **edges**: `edge_pairs` pairs per knot (both directions
  written), each to a knot sharing an entity where it has one, else to a random knot, with the
  §3 layers and a weight between the two anchors.

The rows are built in Python and sent with COPY (`cursor.copy`); the vectors go through a
binary COPY (pgvector's binary form: no 384-number text per row), and the knots, presence and
links are derived from the loaded rows by INSERT … SELECT. The indexes that a load would
update row by row (the knots' and memories' HNSW and GIN indexes) are dropped first and built
again after loading; the foreign-key triggers are off during the load when the role may switch them off
(`session_replication_role = replica`, superusers only; the rows are consistent by
construction), then `VACUUM ANALYZE`.
"""

from __future__ import annotations

import math
import random
import re
import time
from dataclasses import dataclass, field
from datetime import timedelta
from types import SimpleNamespace

import numpy as np

from bench.corpus import PEOPLE, PLACES, PROJECTS, SURNAMES, TOOLS, memory_specs
from bench.fixture import MemoryRows

# The names a knot can carry as entities: the corpus's proper nouns (months and weekdays are times).
ENTITY_NAMES = (*PEOPLE, *SURNAMES, *PLACES, *PROJECTS, *TOOLS)
# Share of knots with an event time (the rest have none), and the spread of their precisions.
EVENT_TIME_SHARE = 0.7
PRECISION_WEIGHTS = {"minute": 5, "hour": 10, "day": 55, "week": 8, "month": 15, "quarter": 2, "year": 5}
# Knot creation times spread over this many days before the build (days).
CREATED_SPREAD_DAYS = 730
# Event times lie up to this many days before the knot's creation (days).
EVENT_SPREAD_DAYS = 3 * 365
# Last reinforcement of a knot lies up to this many days before the build (days).
REINFORCED_SPREAD_DAYS = 365
# Share of knots that faded long ago: reinforced so long before the build that their presence
# fell below MIN_WEIGHT, so they are inactive (the measurement of 1,000,000 knots had 908k active).
FADED_SHARE = 0.1
# Edge pairs per knot of the fixture (pairs; each written in both directions).
DEFAULT_EDGE_PAIRS = 3
# Texts embedded per batch (texts).
EMBED_BATCH = 2000
# Working memory of the index builds after loading (PostgreSQL setting).
BUILD_MAINTENANCE_WORK_MEM = "1GB"
# Indexes dropped before the load and built after it (a load would update them row by row).
NET_INDEXES_BUILT_AFTER_LOADING = (
    "knot_embedding_hnsw",
    "knot_entities_gin",
    "knot_themes_gin",
    "knot_mind_search_gin",
    "memory_embedding_hnsw",
    "memory_search_gin",
    "memory_mind_search_gin",
    "memory_tags_gin",
)
# The keys of backlog memories start so (the fixture's own memories have the corpus's keys).
BACKLOG_KEY_PREFIX = "backlog_"
_WORD = re.compile(r"[\w-]+")


@dataclass
class NetFixture:
    mind_id: str
    key: str  # the mind's plaintext Mind Key
    knots: int
    distinct: int  # knots of their own content and vector; the rest repeat them
    edges: int  # edge rows (two per pair)
    entity_ids: dict[str, int]  # name → Entity id
    vectors: np.ndarray  # the distinct knots' vectors, row i = the i-th base knot
    steps_s: dict[str, float] = field(default_factory=dict)  # seconds per build step

    @property
    def build_s(self) -> float:
        return round(sum(self.steps_s.values()), 1)


def _precision_pick(rng: random.Random) -> str:
    return rng.choices(list(PRECISION_WEIGHTS), weights=list(PRECISION_WEIGHTS.values()))[0]


def _copy_text(value) -> str | None:
    """A value as COPY's text form takes it (lists as array literals; psycopg escapes the rest)."""
    from bench.filtered_search import _copy_value

    return _copy_value(value)


def _entities_in(content: str, entity_ids: dict[str, int]) -> list[int]:
    found = {entity_ids[word] for word in _WORD.findall(content) if word in entity_ids}
    return sorted(found)


def _timer(steps: dict[str, float], name: str, started: float) -> float:
    now = time.perf_counter()
    steps[name] = round(now - started, 2)
    print(f"  net fixture: {name} {steps[name]:.1f} s", flush=True)
    return now


def _indexes_drop(cursor, names: tuple[str, ...]) -> list[str]:
    cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY(%s)", [list(names)])
    definitions = cursor.fetchall()
    for name, _ in definitions:
        cursor.execute(f"DROP INDEX {name}")
    return [definition for _, definition in definitions]


def fixture_name(*, knots: int, seed: int, distinct: int, edge_pairs: int, hnsw: bool) -> str:
    """The fixture mind's name: every parameter of its build, so a later run can tell it is the same net."""
    return f"net of {knots} knots, {distinct} distinct, seed {seed}, {edge_pairs} edge pairs, hnsw {hnsw}"


def net_find(
    *, knots: int, seed: int, distinct: int | None = None, edge_pairs: int = DEFAULT_EDGE_PAIRS, hnsw: bool = True
) -> NetFixture | None:
    """The net an earlier build of the same parameters left in the connected database, or None.

    What a run added to it (a promotion backlog and its knots) must have been removed again
    (`backlog_remove`): the net is found only while it holds exactly the knots it was built with.
    The found fixture has no plaintext key and no vectors (nothing that reuses a net reads them).
    """
    from minds.models import Mind
    from synapses.models import Edge, Entity, Knot

    name = fixture_name(knots=knots, seed=seed, distinct=min(knots, distinct or knots), edge_pairs=edge_pairs,
                        hnsw=hnsw)  # fmt: skip
    mind = Mind.objects.filter(name=name).first()
    if mind is not None:  # the backlog of a run that was interrupted before it removed it
        backlog_remove(NetFixture(mind.pk, "", knots, 0, 0, {}, np.empty(0)), None)
    if mind is None or Knot.objects.filter(mind=mind).count() != knots:
        return None
    return NetFixture(
        mind_id=mind.pk,
        key="",
        knots=knots,
        distinct=min(knots, distinct or knots),
        edges=Edge.objects.filter(mind=mind).count(),
        entity_ids=dict(Entity.objects.filter(mind=mind).values_list("name", "id")),
        vectors=np.empty((0, 0), dtype=np.float32),
    )


def net_build(
    *,
    knots: int,
    seed: int,
    distinct: int | None = None,
    edge_pairs: int = DEFAULT_EDGE_PAIRS,
    hnsw: bool = True,
    owner_email: str = "net@example.com",
) -> NetFixture:
    """Build one mind with `knots` knots (see the module's docstring) and return what was built.

    `distinct` (default: all) is how many knots get their own content and vector; `hnsw=False`
    leaves the knots' HNSW index unbuilt (the decay bench never reads it, and building it over
    1,000,000 rows takes minutes). Runs in the database Django is connected to.
    """
    from django.db import connection, transaction
    from django.utils import timezone
    from pgvector.psycopg.vector import register_vector_info
    from psycopg.types import TypeInfo

    from memories.embedders import get_embedder
    from memories.models import Memory
    from minds.services import mind_create, user_register
    from synapses.config import synapse_settings
    from synapses.constants import LAYER_ENTITY, LAYER_THEMES
    from synapses.models import Edge, Entity, Knot, KnotPresence, MemoryKnot
    from synapses.net.geometry import damp

    distinct = min(knots, distinct or knots)
    rng = random.Random(seed)
    steps: dict[str, float] = {}
    clock = time.perf_counter()
    now = timezone.now()
    owner = user_register(email=owner_email, password="bench password that is long enough")
    mind, issued = mind_create(
        owner=owner, name=fixture_name(knots=knots, seed=seed, distinct=distinct, edge_pairs=edge_pairs, hnsw=hnsw)
    )
    entity_ids = {
        entity.name: entity.pk
        for entity in Entity.objects.bulk_create(Entity(mind=mind, name=name, created_at=now) for name in ENTITY_NAMES)
    }
    specs = memory_specs(distinct, seed=seed)
    clock = _timer(steps, "corpus", clock)
    embedder = get_embedder()
    vectors = np.vstack(
        [embedder.embed([spec.content for spec in specs[start : start + EMBED_BATCH]])
         for start in range(0, distinct, EMBED_BATCH)]
    ).astype(np.float32)  # fmt: skip
    clock = _timer(steps, "embedding", clock)

    memory_rows = MemoryRows(mind, now=now)
    min_weight = synapse_settings.MIN_WEIGHT
    rate = synapse_settings.DECAY_RATE
    knot_entities: list[list[int]] = []
    with transaction.atomic(), connection.cursor() as cursor:
        definitions = _indexes_drop(cursor, NET_INDEXES_BUILT_AFTER_LOADING)
        if not hnsw:
            definitions = [d for d in definitions if "knot_embedding_hnsw" not in d]
        # The load writes consistent rows only: no foreign-key trigger needs to check each one.
        # Only a superuser may switch them off; any other role loads with the checks on (slower),
        # checked per statement: deferred checks left pending would forbid the index builds below.
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        if cursor.fetchone()[0]:
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            "CREATE TEMP TABLE bench_net_base (n int PRIMARY KEY, memory_id varchar(40), embedding vector,"
            " entities bigint[], event_time timestamptz, event_precision varchar(8), weight_raw float8,"
            " weight_anchor float8, created_at timestamptz, reinforced_at timestamptz) ON COMMIT DROP"
        )

        with cursor.copy(f"COPY {Memory._meta.db_table} ({memory_rows.columns}) FROM STDIN") as copy:
            base_rows = []
            for n, spec in enumerate(specs):
                created = now - timedelta(seconds=rng.uniform(0, CREATED_SPREAD_DAYS * 86_400))
                values = memory_rows.values(spec, created_at=created, updated_at=created, changed_at=created)
                entities = _entities_in(spec.content, entity_ids)
                knot_entities.append(entities)
                values["entities"] = [name for name in ENTITY_NAMES if entity_ids[name] in entities]
                if rng.random() < EVENT_TIME_SHARE:
                    values["event_precision"] = _precision_pick(rng)
                    values["event_time"] = created - timedelta(seconds=rng.uniform(0, EVENT_SPREAD_DAYS * 86_400))
                copy.write_row(memory_rows.row(values))
                memory = SimpleNamespace(pk=values["id"], salience=values["salience"], event_time=values["event_time"],
                                         event_precision=values["event_precision"])  # fmt: skip
                anchor = damp(memory.salience)
                days = rng.uniform(0, REINFORCED_SPREAD_DAYS)
                if rng.random() < FADED_SHARE:  # presence_base · e^(−rate·days) < MIN_WEIGHT
                    days += math.log(max(anchor, min_weight) / min_weight) / rate
                reinforced = now - timedelta(days=days)
                base_rows.append(
                    (n, memory.pk, _copy_text(entities), memory.event_time and memory.event_time.isoformat(),
                     memory.event_precision, memory.salience, anchor, created.isoformat(), reinforced.isoformat())
                )  # fmt: skip
        clock = _timer(steps, "memories (COPY)", clock)
        with cursor.copy(
            "COPY bench_net_base (n, memory_id, entities, event_time, event_precision, weight_raw, weight_anchor,"
            " created_at, reinforced_at) FROM STDIN"
        ) as copy:
            for row in base_rows:
                copy.write_row(row)
        cursor.execute("CREATE TEMP TABLE bench_net_vectors (n int PRIMARY KEY, embedding vector) ON COMMIT DROP")
        # pgvector's binary dumper on this cursor alone (Django's own queries keep the text form).
        raw = cursor.cursor
        register_vector_info(raw, TypeInfo.fetch(raw.connection, "vector"))
        with raw.copy("COPY bench_net_vectors (n, embedding) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "vector"])
            for n in range(distinct):
                copy.write_row((n, vectors[n]))
        clock = _timer(steps, "knot rows and vectors (COPY)", clock)

        # Every base knot once per version (version 0: the memory's own content). No ORDER BY: sorting
        # rows that carry a vector spilled to disk; the edges below look each knot's base up instead.
        knot_table, presence_table = Knot._meta.db_table, KnotPresence._meta.db_table
        cursor.execute(
            f"""INSERT INTO {knot_table} (mind_id, memory_id, content, content_hash, category, observer, emotion,
                    arousal, attributes, embedding, embedding_model, themes, entities, event_time,
                    event_precision, weight_raw, weight_anchor, activation_count, created_at, source_created_at)
                SELECT m.mind_id, m.id, CASE WHEN v.version = 0 THEN m.content ELSE '' END,
                       CASE WHEN v.version = 0 THEN m.content_hash
                            ELSE md5(m.content_hash || v.version::text) || md5(v.version::text || m.id) END,
                       m.category, m.speaker, '', NULL, '{{}}'::jsonb, e.embedding, %(model)s, m.tags, b.entities,
                       b.event_time, b.event_precision, b.weight_raw, b.weight_anchor, 1, b.created_at, m.created_at
                  FROM generate_series(0, %(versions)s - 1) AS v(version)
                  JOIN bench_net_base b ON b.n < %(knots)s - v.version * %(distinct)s
                  JOIN bench_net_vectors e ON e.n = b.n
                  JOIN {Memory._meta.db_table} m ON m.id = b.memory_id""",  # noqa: S608 — table names are ours, values are parameters
            {"model": embedder.name, "versions": -(-knots // distinct), "knots": knots, "distinct": distinct},
        )
        cursor.execute(
            f"""INSERT INTO {presence_table} (knot_id, mind_id, presence_base, weight_present, reinforced_at,
                    decayed_at, is_active)
                SELECT k.id, k.mind_id, k.weight_anchor, p.present, b.reinforced_at, %(now)s, p.present >= %(min)s
                  FROM {knot_table} k
                  JOIN bench_net_base b ON b.memory_id = k.memory_id,
                  LATERAL (SELECT k.weight_anchor * exp(-%(rate)s * extract(epoch FROM %(now)s - b.reinforced_at)
                           / 86400.0) AS present) p
                 WHERE k.mind_id = %(mind)s""",  # noqa: S608
            {"now": now, "min": min_weight, "rate": rate, "mind": mind.pk},
        )
        cursor.execute(
            f"""INSERT INTO {MemoryKnot._meta.db_table} (mind_id, memory_id, content_hash, knot_id, kind, created_at)
                SELECT mind_id, memory_id, content_hash, id, 'origin', created_at FROM {knot_table}
                 WHERE mind_id = %(mind)s""",  # noqa: S608
            {"mind": mind.pk},
        )
        clock = _timer(steps, "knots, presence, links (INSERT … SELECT)", clock)

        cursor.execute(
            f"SELECT k.id, b.n FROM {knot_table} k JOIN bench_net_base b ON b.memory_id = k.memory_id"  # noqa: S608
            " WHERE k.mind_id = %s ORDER BY k.id",
            [mind.pk],
        )
        knot_base = cursor.fetchall()  # (knot id, base n)
        knots_of_base: dict[int, list[int]] = {}
        for knot_id, n in knot_base:
            knots_of_base.setdefault(n, []).append(knot_id)
        anchors = [row[6] for row in base_rows]
        bases_of_entity: dict[int, list[int]] = {}
        for n, entities in enumerate(knot_entities):
            for entity in entities:
                bases_of_entity.setdefault(entity, []).append(n)
        pairs: set[tuple[int, int]] = set()
        edge_columns = ("mind_id, source_id, target_id, weight_raw, weight_anchor, layers, shared_entities,"
                        " shared_themes, time_distance, cosine_initial, layer_count, created_at")  # fmt: skip
        created = now.isoformat()
        with cursor.copy(f"COPY {Edge._meta.db_table} ({edge_columns}) FROM STDIN") as copy:
            for source, n in knot_base:
                for _ in range(edge_pairs):
                    entities = knot_entities[n]
                    if entities:  # a knot sharing one of its entities: the entity layer
                        entity = rng.choice(entities)
                        target_n = rng.choice(bases_of_entity[entity])
                        layers, shared = [LAYER_ENTITY], [entity]
                    else:  # no entity: a random knot, as a themes edge
                        target_n = rng.randrange(distinct)
                        layers, shared = [LAYER_THEMES], []
                    target = rng.choice(knots_of_base[target_n])
                    pair = (min(source, target), max(source, target))
                    if source == target or pair in pairs:
                        continue
                    pairs.add(pair)
                    # An edge never falls below the weaker anchor nor rises above the stronger (§3).
                    low, high = sorted((anchors[n], anchors[target_n]))
                    weight = rng.uniform(low, high)
                    for a, b in ((source, target), (target, source)):
                        copy.write_row(
                            (mind.pk, a, b, weight, damp(weight), _copy_text(layers), _copy_text(shared), "{}",
                             None, None, len(layers), created)
                        )  # fmt: skip
        clock = _timer(steps, "edges (COPY)", clock)
        cursor.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MAINTENANCE_WORK_MEM}'")
        for definition in definitions:
            cursor.execute(definition)
        clock = _timer(steps, "indexes", clock)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    _timer(steps, "vacuum analyze", clock)
    return NetFixture(
        mind_id=mind.pk,
        key=issued.plaintext,
        knots=len(knot_base),
        distinct=distinct,
        edges=2 * len(pairs),
        entity_ids=entity_ids,
        vectors=vectors,
        steps_s=steps,
    )


def backlog_add(net: NetFixture, *, count: int, seed: int) -> list[str]:
    """`count` new memories of the net's mind, stored as a store writes them (embedded, entities
    named as in the fixture, event times spread alike) and not yet promoted; their ids."""
    from django.utils import timezone

    from memories.embedders import get_embedder
    from memories.models import Memory, Source
    from memories.services.memory import memory_build
    from minds.models import Mind

    rng = random.Random(seed)
    mind = Mind.objects.get(pk=net.mind_id)
    now = timezone.now()
    specs = memory_specs(count, seed=seed)
    vectors = get_embedder().embed([spec.content for spec in specs])
    memories = []
    for index, (spec, vector) in enumerate(zip(specs, vectors, strict=True)):
        memory = memory_build(
            mind=mind,
            fields={"category": spec.category, "content": spec.content, "tags": spec.tags, "priority": spec.priority},
            key=f"{BACKLOG_KEY_PREFIX}{seed}_{index:06d}",
            source=Source.AGENT, speaker=None, turn_id="", created_at=now, updated_at=now,
        )  # fmt: skip
        memory.entities = [name for name in ENTITY_NAMES if name in set(_WORD.findall(spec.content))]
        if rng.random() < EVENT_TIME_SHARE:
            memory.event_precision = _precision_pick(rng)
            memory.event_time = now - timedelta(seconds=rng.uniform(0, EVENT_SPREAD_DAYS * 86_400))
        memory.embedding, memory.embedding_model = vector, get_embedder().name
        memories.append(memory)
    Memory.objects.bulk_create(memories, batch_size=500)
    return [memory.pk for memory in memories]


def backlog_remove(net: NetFixture, memory_ids: list[str] | None) -> int:
    """Delete the backlog memories `memory_ids` (every backlog memory of the net's mind when None)
    again, with their knots and those knots' edges (by cascade): the net is as it was built, for
    the next run that reuses it. Memories deleted."""
    from memories.models import Memory

    backlog = Memory.objects.filter(mind_id=net.mind_id, key__startswith=BACKLOG_KEY_PREFIX)
    if memory_ids is not None:
        backlog = backlog.filter(pk__in=memory_ids)
    _, deleted = backlog.delete()
    _discovered_remove(net)
    return deleted.get(Memory._meta.label, 0)


def _discovered_remove(net: NetFixture) -> None:
    """The entities the backlog's promotion found in its content (entity discovery), gone again,
    and from the built knots that gained one (a name the mind used again)."""
    from synapses.models import Entity, Knot

    extra = Entity.objects.filter(mind_id=net.mind_id).exclude(name__in=ENTITY_NAMES)  # the built ones
    extra_ids = set(extra.values_list("pk", flat=True))
    if not extra_ids:
        return
    for knot in Knot.objects.filter(mind_id=net.mind_id, entities__overlap=list(extra_ids)).only("entities", "magnets"):
        knot.entities = [entity_id for entity_id in knot.entities if entity_id not in extra_ids]
        found = [item for item in knot.magnets.get("entities", []) if item["id"] not in extra_ids]
        knot.magnets = {**knot.magnets, "entities": found} if knot.magnets else {}
        knot.save(update_fields=["entities", "magnets"])
    extra.delete()
