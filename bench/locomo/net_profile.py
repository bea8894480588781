"""What the net of a LoCoMo conversation looks like, and where resonance finds its evidence.

    python -m bench.locomo.net_profile --data PATH [--conversations N] [--k 10] [--embedder hashing]

Stores and promotes the conversations as `python -m bench locomo` does (its own throw-away
database), then prints, per conversation: knots and edges, the edges per knot, how often each
layer fires in an edge, and for the scored questions at limit k: how many evidence turns
resonance returns as an anchor candidate (shell 0) and how many by spreading (shell ≥ 1), and
the shells of all returned items. It explains the `synapse` row of the LoCoMo table
(docs/benchmarks.md → LoCoMo retrieval); it scores nothing itself.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from bench.database import database_create, database_drop, django_setup

PROFILE_DATABASE = "bench_locomo_profile"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo.net_profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--conversations", type=int, default=1, help="the first N conversations (default 1)")
    parser.add_argument("--k", type=int, default=10, help="the resonance limit (default 10)")
    parser.add_argument("--embedder", choices=("hashing", "sentence-transformers"), default="hashing")
    parser.add_argument(
        "--database", default=PROFILE_DATABASE, help=f"throw-away database (default {PROFILE_DATABASE})"
    )
    return parser.parse_args(argv)


def _profile(stored, k: int) -> None:
    from synapses.models import Edge, Entity, Knot
    from synapses.resonance.service import resonance_of

    mind_id = stored.mind.pk
    knots = Knot.objects.filter(mind_id=mind_id).count()
    speakers = {name.lower() for name in stored.conversation.speakers}
    speaker_ids = {pk for pk, name in Entity.objects.filter(mind_id=mind_id).values_list("id", "name")
                   if name.lower() in speakers}  # fmt: skip
    layers: Counter[str] = Counter()
    edges = speakers_only = 0
    for row, shared in Edge.objects.filter(mind_id=mind_id).values_list("layers", "shared_entities").iterator():
        edges += 1
        layers.update(row)
        speakers_only += bool(shared) and set(shared) <= speaker_ids
    memory_of = {pk: dia_id for pk, dia_id in stored.turn_of.items()}
    found_by_shell: Counter[int] = Counter()
    items_by_shell: Counter[int] = Counter()
    followed: Counter[str] = Counter()  # the layers of the edge each spread item came by
    followed_speakers_only = 0
    evidence_total = 0
    for question in stored.conversation.questions:
        evidence_total += len(question.evidence)
        seen: set[str] = set()
        for item in resonance_of(mind=stored.mind, q=question.text, limit=k)["items"]:
            items_by_shell[item["shell"]] += 1
            if item["path"]:
                step = item["path"][-1]
                followed["+".join(sorted(step["layers"]))] += 1
                names = {name.lower() for name in step["shared_entities"]}
                followed_speakers_only += bool(names) and names <= speakers
            for memory_id in item["memory_ids"]:
                dia_id = memory_of.get(memory_id)
                if dia_id in question.evidence and dia_id not in seen:
                    seen.add(dia_id)
                    found_by_shell[item["shell"]] += 1
    print(
        f"{stored.conversation.sample_id}: {knots} knots, {edges} directed edges ({edges / max(knots, 1):.1f} per knot)"
    )
    print(
        "  layer firing in edges: "
        + ", ".join(f"{name} {count / max(edges, 1):.0%}" for name, count in layers.most_common())
    )
    print(f"  edges whose shared entities are only the speakers: {speakers_only / max(edges, 1):.0%}")
    print(
        f"  {len(stored.conversation.questions)} questions, {evidence_total} evidence turns; found in the top {k}: "
        + ", ".join(f"shell {shell}: {count}" for shell, count in sorted(found_by_shell.items()))
    )
    spread_items = sum(followed.values())
    print(
        "  edges spread items came by: "
        + ", ".join(f"{layers} {count / max(spread_items, 1):.0%}" for layers, count in followed.most_common(4))
        + f"; sharing only a speaker: {followed_speakers_only / max(spread_items, 1):.0%}"
    )
    print(
        "  items returned by shell: "
        + ", ".join(f"{shell}: {count}" for shell, count in sorted(items_by_shell.items()))
    )


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    django_setup(embedder=args.embedder)
    from bench.locomo.dataset import dataset_load
    from bench.locomo.harness import LOCOMO_OWNER_EMAIL, LOCOMO_OWNER_PASSWORD, conversation_store
    from bench.locomo.systems import promotion_step
    from minds.services import user_register

    conversations = dataset_load(args.data, conversations=args.conversations)
    database_create(args.database)
    try:
        owner = user_register(email=LOCOMO_OWNER_EMAIL, password=LOCOMO_OWNER_PASSWORD)
        for conversation in conversations:
            _profile(conversation_store(conversation, owner=owner, prepare=[promotion_step]), args.k)
    finally:
        database_drop(args.database)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
