"""A tiny LoCoMo-format file, written by hand, for `make bench-quick` and the tests.

Two conversations, eight turns, seven questions of which five are scored. The questions cover
what the harness must get right: an evidence turn that is the only one sharing the question's
words, a multi-hop question with two evidence turns, a malformed evidence string ("D2:1; D9:9"),
evidence naming no turn, empty evidence, category 5, and the same question in two minds.
tests/test_bench_locomo.py works out the expected recall of each by hand.

    python -m bench.locomo.synthetic OUT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SYNTHETIC_SAMPLES: list[dict] = [
    {
        "sample_id": "synthetic-1",
        "conversation": {
            "speaker_a": "Alice",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Alice",
                    "dia_id": "D1:1",
                    "text": "Hey Bob! I adopted a greyhound named Pixel yesterday.",
                    "img_url": ["https://example.com/pixel.jpg"],
                    "blip_caption": "a photo of a dog on a sofa",
                },
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Congratulations! My sister Clara lives in Lisbon now."},
                {"speaker": "Alice", "dia_id": "D1:3", "text": "I am learning the cello at the conservatory."},
            ],
            "session_2_date_time": "10:00 am on 2 June, 2023",
            "session_2": [
                {"speaker": "Bob", "dia_id": "D2:1", "text": "I finished the marathon in Porto last Sunday."},
                {"speaker": "Alice", "dia_id": "D2:2", "text": "Pixel loves running on the beach."},
                {"speaker": "Bob", "dia_id": "D2:3", "text": "Clara visited me and we cooked bacalhau."},
            ],
            # A date without its session, as in the public file: ignored.
            "session_3_date_time": "4:00 pm on 1 July, 2023",
        },
        "qa": [
            {"question": "Where does Clara live?", "answer": "Lisbon", "evidence": ["D1:2"], "category": 4},
            {"question": "What is Pixel?", "answer": "A greyhound", "evidence": ["D1:1", "D2:2"], "category": 1},
            {
                "question": "When did Bob run the marathon?",
                "answer": "28 May 2023",
                "evidence": ["D2:1; D9:9"],
                "category": 2,
            },
            {"question": "What does Alice play?", "answer": "The cello", "evidence": ["D7:1"], "category": 3},
            {
                "question": "Which pet does Bob have?",
                "adversarial_answer": "A greyhound",
                "evidence": ["D1:1"],
                "category": 5,
            },  # fmt: skip
            {"question": "Who is Clara?", "answer": "Bob's sister", "evidence": [], "category": 4},
            {
                "question": "Bob: I finished the marathon in Porto last Sunday.",
                "answer": "Porto",
                "evidence": ["D2:1"],
                "category": 4,
            },
        ],
    },
    {
        "sample_id": "synthetic-2",
        "conversation": {
            "speaker_a": "Carmen",
            "speaker_b": "Dmitri",
            "session_1_date_time": "9:15 am on 3 March, 2024",
            "session_1": [
                {"speaker": "Carmen", "dia_id": "D1:1", "text": "Dmitri, my cousin Clara lives in Berlin."},
                {"speaker": "Dmitri", "dia_id": "D1:2", "text": "Berlin is lovely in spring."},
            ],
        },
        "qa": [{"question": "Where does Clara live?", "answer": "Berlin", "evidence": ["D1:1"], "category": 4}],
    },
]


# A third conversation, kept apart from SYNTHETIC_SAMPLES (whose counts the tests work out by
# hand), for the net: the question's words are only in D1:1 ("clockmaker", "village"); its
# evidence D1:2 shares none of them, only the name Greta and the session's day with D1:1, so
# neither full text nor an anchor finds it: only an edge of the net leads there. Session 2 is
# another day with other names, words the question does not use.
EDGE_SAMPLE: dict = {
    "sample_id": "synthetic-edge",
    "conversation": {
        "speaker_a": "Erin",
        "speaker_b": "Farid",
        "session_1_date_time": "11:00 am on 5 January, 2024",
        "session_1": [
            {"speaker": "Erin", "dia_id": "D1:1", "text": "Our village clockmaker is my aunt, Greta."},
            {"speaker": "Farid", "dia_id": "D1:2", "text": "So Greta bought that old bassoon from Hamburg!"},
        ],
        "session_2_date_time": "6:30 pm on 20 August, 2024",
        "session_2": [
            {"speaker": "Erin", "dia_id": "D2:1", "text": "Tomorrow I start kayaking lessons with Ingrid."},
            {"speaker": "Farid", "dia_id": "D2:2", "text": "Ingrid taught me sailing near Oslo."},
        ],
    },
    "qa": [
        {
            "question": "Which instrument did the village clockmaker buy?",
            "answer": "A bassoon",
            "evidence": ["D1:1", "D1:2"],
            "category": 1,
        }
    ],
}


def synthetic_write(path: Path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(SYNTHETIC_SAMPLES, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bench.locomo.synthetic OUT.json")
    print(f"Wrote {synthetic_write(Path(sys.argv[1]))}")
