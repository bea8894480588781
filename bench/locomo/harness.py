"""A LoCoMo run in the database Django is connected to: store, prepare, ask, score.

Every conversation becomes one mind; every turn one memory, written through the product's own
sync service (validated by the sync endpoint's serializer, as a client's batch would be). Then
the prepare steps run (promotion), then every scored question goes to every system, in an order
that rotates from question to question so no system always runs first (warm caches, load).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import connection

from bench.locomo.dataset import DEFAULT_TURN_TIME, Conversation, Question, turn_memory
from bench.locomo.metrics import Outcome, recall_at_k, system_summary
from bench.locomo.systems import System
from memories.api.serializers import MAX_SYNC_MEMORIES, SyncRequestSerializer
from memories.models import Memory
from memories.services.sync import memories_sync
from minds.access import caller_of
from minds.authentication import AgentPrincipal
from minds.models import Mind
from minds.services import mind_create, user_register

# The owner of the benchmark's minds (a throw-away database, so any valid account does).
LOCOMO_OWNER_EMAIL = "locomo@example.com"
LOCOMO_OWNER_PASSWORD = "locomo bench password that is long enough"
# Questions asked of every system before timing starts (untimed): first calls pay for caches.
WARMUP_QUESTIONS = 5


@dataclass(frozen=True)
class StoredConversation:
    conversation: Conversation
    mind: Mind
    turn_of: dict[str, str]  # memory id → dia_id
    prepare_s: float = 0.0  # wall time of the prepare steps on this mind (seconds)


def _unique_keys(items: list[dict]) -> None:
    """Two turns whose keys coincide (a repeated dia_id) must stay two memories, not one upsert."""
    seen: dict[str, int] = {}
    for fields in items:
        count = seen[fields["key"]] = seen.get(fields["key"], 0) + 1
        if count > 1:
            fields["key"] = f"{fields['key']}-{count}"


def conversation_store(
    conversation: Conversation,
    *,
    owner,
    prepare: Sequence[Callable[[Mind, Sequence[str]], None]] = (),
    turn_time: str = DEFAULT_TURN_TIME,
) -> StoredConversation:
    """One mind with every turn of `conversation` as a memory (its event_time modelled by
    `turn_time`, bench.locomo.dataset.TURN_TIMES), then the `prepare` steps, each given the mind
    and its memory ids in the conversation's order."""
    mind, issued = mind_create(owner=owner, name=f"LoCoMo {conversation.sample_id}".strip())
    caller = caller_of(AgentPrincipal(key=issued.key))
    items = [turn_memory(turn, speakers=conversation.speakers, turn_time=turn_time) for turn in conversation.turns]
    _unique_keys(items)
    turn_of: dict[str, str] = {}
    position: dict[str, int] = {}  # memory id → the turn's place in the conversation
    for start in range(0, len(items), MAX_SYNC_MEMORIES):
        serializer = SyncRequestSerializer(data={"memories": items[start : start + MAX_SYNC_MEMORIES]})
        serializer.is_valid(raise_exception=True)
        result = memories_sync(mind=mind, items=serializer.validated_data["memories"], caller=caller)
        for item in result.items:
            turn_of[item.memory_id] = conversation.turns[start + item.index].dia_id
            position[item.memory_id] = start + item.index
    in_order = sorted(position, key=position.__getitem__)
    started = time.perf_counter()
    for step in prepare:
        step(mind, in_order)
    return StoredConversation(
        conversation=conversation, mind=mind, turn_of=turn_of, prepare_s=time.perf_counter() - started
    )


def conversation_find(conversation: Conversation, *, owner) -> StoredConversation:
    """The mind a kept database holds for `conversation` (stored and prepared by an earlier run
    with `--keep`), its memory ids mapped back to turns by their keys: nothing is written."""
    from memories.models import Memory

    mind = Mind.objects.get(owner=owner, name=f"LoCoMo {conversation.sample_id}".strip())
    items = [turn_memory(turn, speakers=conversation.speakers) for turn in conversation.turns]
    _unique_keys(items)
    dia_of_key = {fields["key"]: turn.dia_id for fields, turn in zip(items, conversation.turns, strict=True)}
    turn_of = {
        pk: dia_of_key[key]
        for pk, key in Memory.objects.filter(mind=mind).values_list("pk", "key")
        if key in dia_of_key
    }
    return StoredConversation(conversation=conversation, mind=mind, turn_of=turn_of)


def _ask(system: System, stored: StoredConversation, question: Question, ks: Sequence[int]) -> Outcome:
    largest = max(ks)
    started = time.perf_counter()
    items = system.top_k(stored.mind.pk, question.text, largest)
    latency_ms = (time.perf_counter() - started) * 1000.0
    by_k = {k: items for k in ks}
    if not system.prefix_stable:
        by_k.update({k: system.top_k(stored.mind.pk, question.text, k) for k in ks if k != largest})

    def turns(found: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        return [tuple(stored.turn_of[pk] for pk in item if pk in stored.turn_of) for item in found]

    return Outcome(
        category=question.category,
        recall={k: recall_at_k(question.evidence, turns(by_k[k]), k) for k in ks},
        results=len(items),
        latency_ms=latency_ms,
    )


def locomo_run(
    conversations: list[Conversation],
    *,
    systems: Sequence[System],
    ks: Sequence[int],
    reuse: bool = False,
    turn_time: str = DEFAULT_TURN_TIME,
) -> dict:
    """Store every conversation (turn times modelled by `turn_time`), ask every scored question
    of every system, summarise. `reuse`: the database already holds the conversations, stored and
    prepared (a run with `--keep`; `turn_time` is then what that run stored, not checked).

    Returns `{"conversations", "questions", "turns", "skipped_evidence", "k", "systems": {name: summary}}`.
    """
    if reuse:
        from django.contrib.auth import get_user_model

        owner = get_user_model().objects.get(email=LOCOMO_OWNER_EMAIL)
    else:
        owner = user_register(email=LOCOMO_OWNER_EMAIL, password=LOCOMO_OWNER_PASSWORD)
    prepare = [system.prepare for system in systems if system.prepare is not None]
    stored = []
    for conversation in conversations:
        if reuse:
            stored.append(conversation_find(conversation, owner=owner))
            continue
        stored.append(conversation_store(conversation, owner=owner, prepare=prepare, turn_time=turn_time))
        if prepare:
            print(
                f"  {conversation.sample_id}: {len(conversation.turns)} turns stored and prepared in "
                f"{stored[-1].prepare_s:.1f} s",
                flush=True,
            )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Memory._meta.db_table}")  # fresh statistics for the planner, as autovacuum would
    asked = [(mind, question) for mind in stored for question in mind.conversation.questions]
    for mind, question in asked[:WARMUP_QUESTIONS]:
        for system in systems:
            _ask(system, mind, question, ks)
    outcomes: dict[str, list[Outcome]] = {system.name: [] for system in systems}
    for index, (mind, question) in enumerate(asked):
        shift = index % len(systems)
        for system in [*systems[shift:], *systems[:shift]]:
            outcomes[system.name].append(_ask(system, mind, question, ks))
    return {
        "conversations": len(conversations),
        "questions": len(asked),
        "turns": sum(len(conversation.turns) for conversation in conversations),
        "skipped_evidence": sum(conversation.skipped_evidence for conversation in conversations),
        "prepare_s": round(sum(mind.prepare_s for mind in stored), 1),
        "turn_time": turn_time,
        "k": list(ks),
        "systems": {name: system_summary(found, ks) for name, found in outcomes.items()},
    }


def results_table(result: dict) -> str:
    """The run as text: recall@k, latency and the two counts per system, then recall by category per k."""
    ks = result["k"]
    largest = max(ks)
    systems = result["systems"]
    header = (
        f"{'system':<10}"
        + "".join(f" {f'recall@{k}':>10}" for k in ks)
        + f" {'p50 ms':>8} {'p95 ms':>8} {'with results':>13} {f'evidence@{largest}':>12}"
    )
    lines = [header, "-" * len(header)]
    for name, summary in systems.items():
        lines.append(
            f"{name:<10}"
            + "".join(f" {summary[f'recall@{k}']:>10.4f}" for k in ks)
            + f" {summary['p50_ms']:>8.2f} {summary['p95_ms']:>8.2f} {summary['questions_with_results']:>13}"
            + f" {summary[f'questions_with_evidence@{largest}']:>12}"
        )
    categories = sorted({category for summary in systems.values() for category in summary["by_category"]}, key=int)
    for k in ks:
        lines.append("")
        first = next(iter(systems.values()))["by_category"] if systems else {}
        labels = [f"{first[c]['name']} ({c}, n={first[c]['questions']})" if c in first else c for c in categories]
        head = f"{f'recall@{k}':<10}" + "".join(f" {label:>24}" for label in labels)
        lines += [head, "-" * len(head)]
        for name, summary in systems.items():
            cells = [summary["by_category"].get(c, {}).get(f"recall@{k}") for c in categories]
            lines.append(f"{name:<10}" + "".join(f" {'—' if v is None else f'{v:.4f}':>24}" for v in cells))
    return "\n".join(lines)
