"""`python -m bench locomo-fulltext PATH`: how often full-text search alone answers LoCoMo's questions.

PATH is a LoCoMo file (a list of samples with `conversation` and `qa`; the data set is not part
of this repository). Each conversation becomes one mind with one memory per dialog turn
(content "<speaker>: <text>", plus " [shares <caption>]" when the turn shares an image; key the
turn's id); each question of categories 1–4 with evidence
is sent to the product's text selector (`bench.fulltext.text_ranking`, the
text list of hybrid search) with limit TOP_K. Printed: how many questions get any full-text
result, and how many get one of their evidence turns among the results.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import bench.database
from bench.database import database_create, database_drop, django_setup

# A database of its own, so it can run next to the other benchmarks.
LOCOMO_DATABASE = "bench_locomo_fulltext"
# Results per question (the top 20).
TOP_K = 20
# LoCoMo's categories with answers in the conversation (5 is adversarial).
CATEGORIES = (1, 2, 3, 4)


def _turns(conversation: dict) -> list[dict]:
    sessions = sorted(
        (key for key in conversation if key.startswith("session_") and not key.endswith("date_time")),
        key=lambda key: int(key.split("_")[1]),
    )
    return [turn for session in sessions for turn in conversation[session]]


def _content(turn: dict) -> str:
    """ "<speaker>: <text>", and what a shared image shows when the turn shares one."""
    content = f"{turn['speaker']}: {turn['text']}"
    caption = str(turn.get("blip_caption") or "").strip()
    return f"{content} [shares {caption}]" if caption else content


def _evidence(question: dict) -> set[str]:
    """Evidence turn ids; a few upstream strings hold several ids separated by ';'."""
    return {part.strip() for item in question.get("evidence", []) for part in str(item).split(";") if part.strip()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench locomo-fulltext", description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a LoCoMo JSON file (e.g. locomo-dev.json)")
    args = parser.parse_args(argv)
    samples = json.loads(args.path.read_text())
    django_setup()
    from django.utils import timezone

    from bench.fulltext import text_ranking
    from memories.models import Memory, Source
    from memories.services.memory import memory_build
    from minds.services import mind_create, user_register

    bench.database.BENCH_DATABASE = LOCOMO_DATABASE
    print(f"Creating database {LOCOMO_DATABASE} …", flush=True)
    database_create()
    try:
        owner = user_register(email="locomo@example.com", password="bench password that is long enough")
        asked = any_result = evidence_found = 0
        now = timezone.now()
        for sample in samples:
            mind, _ = mind_create(owner=owner, name=sample.get("sample_id", "conversation"))
            memories = [
                memory_build(
                    mind=mind,
                    fields={"category": "context", "content": _content(turn)},
                    key=turn["dia_id"],
                    source=Source.AGENT,
                    speaker=None,
                    turn_id=turn["dia_id"],
                    created_at=now,
                    updated_at=now,
                )  # fmt: skip
                for turn in _turns(sample["conversation"])
            ]
            Memory.objects.bulk_create(memories)
            key_of = {memory.pk: memory.key for memory in memories}
            for question in sample["qa"]:
                evidence = _evidence(question)
                if question.get("category") not in CATEGORIES or not evidence:
                    continue
                asked += 1
                ids = text_ranking(mind_id=mind.pk, q=question["question"], limit=TOP_K)
                any_result += bool(ids)
                evidence_found += bool(evidence & {key_of[pk] for pk in ids})
    finally:
        database_drop()
    print(f"{asked} questions (categories 1–4 with evidence), full-text top {TOP_K}:")
    print(f"  any result:           {any_result}")
    print(f"  an evidence turn:     {evidence_found}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
