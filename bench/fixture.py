"""The data a benchmark runs on: a mind with N memories (bulk-inserted), plus other minds around it."""

from __future__ import annotations

from dataclasses import dataclass

from bench.corpus import memory_specs

# Memories written per INSERT while building the fixture (rows).
FIXTURE_BATCH_SIZE = 500


@dataclass(frozen=True)
class BenchMind:
    mind_id: str
    key: str  # plaintext Mind Key


def _memories_insert(mind, count: int, *, seed: int) -> None:
    from django.utils import timezone

    from memories.embedders import get_embedder
    from memories.models import Memory, Source
    from memories.services.memory import memory_build

    specs = memory_specs(count, seed=seed)
    embedder = get_embedder()
    now = timezone.now()
    for start in range(0, len(specs), FIXTURE_BATCH_SIZE):
        batch = specs[start : start + FIXTURE_BATCH_SIZE]
        vectors = embedder.embed([spec.content for spec in batch])
        memories = []
        for spec, vector in zip(batch, vectors, strict=True):
            # What an agent's POST /memory would store, with the store's defaults.
            fields = {"category": spec.category, "content": spec.content, "tags": spec.tags, "priority": spec.priority}
            memory = memory_build(
                mind=mind,
                fields=fields,
                key=spec.key,
                source=Source.AGENT,
                speaker=None,
                turn_id="",
                created_at=now,
                updated_at=now,
            )
            memory.embedding, memory.embedding_model = vector, embedder.name
            memories.append(memory)
        Memory.objects.bulk_create(memories)


def fixture_build(*, memories: int, other_minds: int, seed: int) -> BenchMind:
    """The benchmarked mind with `memories` memories, and `other_minds` minds of the same size
    owned by someone else (so every query has to filter by mind, as in a shared server)."""
    from django.db import connection

    from minds.services import mind_create, user_register

    owner = user_register(email="bench@example.com", password="bench password that is long enough")
    mind, issued = mind_create(owner=owner, name="Benchmark mind")
    _memories_insert(mind, memories, seed=seed)
    neighbour = user_register(email="neighbour@example.com", password="bench password that is long enough")
    for index in range(other_minds):
        other, _ = mind_create(owner=neighbour, name=f"Neighbour mind {index}")
        _memories_insert(other, memories, seed=seed + 100 + index)
    with connection.cursor() as cursor:
        # Fresh statistics and visibility map, as autovacuum would have them after a while (the
        # visibility map lets recall's counts come from the index alone).
        cursor.execute("VACUUM ANALYZE")
    return BenchMind(mind_id=mind.pk, key=issued.plaintext)


class MemoryRows:
    """Rows for COPY into the memories table from corpus specs, with what memory_build gives.

    Building a model instance per row cost ~1 ms of Python under load (most of a 100,000-row
    load); one instance per (category, priority) gives every default the store would give, and
    each row then differs in what the spec and the caller set.
    """

    def __init__(self, mind, *, now):
        from memories.models import Memory

        self.mind = mind
        self.now = now
        self.fields = [field for field in Memory._meta.concrete_fields if not field.generated]
        self.columns = ", ".join(field.column for field in self.fields)
        self._templates: dict[tuple[str, str], dict] = {}

    def _template(self, category: str, priority: str) -> dict:
        from memories.models import Source
        from memories.services.memory import memory_build

        if (category, priority) not in self._templates:
            memory = memory_build(
                mind=self.mind, fields={"category": category, "content": "-", "priority": priority}, key="-",
                source=Source.AGENT, speaker=None, turn_id="", created_at=self.now, updated_at=self.now,
            )  # fmt: skip
            self._templates[category, priority] = {
                field.attname: getattr(memory, field.attname) for field in self.fields
            }
        return self._templates[category, priority]

    def values(self, spec, **fields) -> dict:
        """The row of `spec` (a corpus MemorySpec) as {attname: value}; `fields` override any."""
        from memories.keys import content_hash_of
        from memoryproject.core.public_ids import new_memory_id

        values = dict(self._template(spec.category, spec.priority))
        values.update(
            id=new_memory_id(), key=spec.key, content=spec.content, tags=spec.tags,
            content_hash=content_hash_of(spec.content),
        )  # fmt: skip
        values.update(fields)
        return values

    def row(self, values: dict) -> list:
        """`values` in column order, as COPY's text form takes them."""
        from bench.filtered_search import _copy_value

        return [_copy_value(values[field.attname]) for field in self.fields]
