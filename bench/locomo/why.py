"""`python -m bench locomo-why`: where the evidence turns are that `synapse` misses in its top k.

    python -m bench locomo-why --data PATH --database NAME [--embedder hashing|sentence-transformers]
                               [--conversations N] [--k 10] [--ranking relevance|seed]

Reads the minds and nets a `python -m bench locomo … --database NAME --keep` run left (stored and
promoted; nothing is written), asks every scored question of resonance at limit k, and sorts each
evidence turn resonance did not return into the first of these places that holds it:

1. `candidate`: among the anchor candidates the ranking weighed (both lists fused), ranked below k;
2. `deeper list`: not weighed, but within the first DEEP_LIST of the text or the vector list;
3. `1 hop`: one edge away from one of the anchors spreading starts from;
4. `2 hops`: two edges away from an anchor;
5. `same session`: in the session of an evidence turn resonance did return;
6. `nowhere`: none of these.

It also counts, whatever the place, the missed turns one edge away from any returned item and the
ones within ADJACENT_TURNS turns of a returned item in the same session, and which layers fire in
the edges that lead from an anchor to a missed turn one hop away. The table is what
docs/benchmarks.md → LoCoMo → "Where the misses are" reports; it scores nothing itself.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# How deep into each anchor list (text, vector) the `deeper list` place looks (knots).
DEEP_LIST = 200
# Turns either side of a returned item that count as its neighbours in the conversation (turns).
ADJACENT_TURNS = 2
# The places of a missed evidence turn, in the order they are tried.
PLACES = ("candidate", "deeper list", "1 hop", "2 hops", "same session", "nowhere")


@dataclass(frozen=True)
class Neighbourhood:
    """What one question's resonance saw, in knot ids (pure data for `miss_place`)."""

    weighed: frozenset[int]  # the anchor candidates the ranking weighed
    deep: frozenset[int]  # the first DEEP_LIST of the text and the vector list
    anchors: frozenset[int]  # where spreading starts
    edges: Mapping[int, Mapping[int, tuple[str, ...]]]  # source → target → the firing layers
    found_sessions: frozenset[int]  # sessions of the evidence turns resonance returned


def one_hop(sources: Iterable[int], edges: Mapping[int, Mapping[int, tuple[str, ...]]]) -> set[int]:
    return {target for source in sources for target in edges.get(source, {})}


def miss_place(knot: int | None, session: int, seen: Neighbourhood) -> str:
    """The first place of PLACES that holds the missed turn (its knot; None: it has none)."""
    if knot is not None:
        if knot in seen.weighed:
            return "candidate"
        if knot in seen.deep:
            return "deeper list"
        first = one_hop(seen.anchors, seen.edges)
        if knot in first:
            return "1 hop"
        if knot in one_hop(first - seen.anchors, seen.edges):
            return "2 hops"
    if session in seen.found_sessions:
        return "same session"
    return "nowhere"


@dataclass
class Tally:
    """The counts of one group of questions (all, or one category)."""

    questions: int = 0
    evidence: int = 0
    found: int = 0
    places: Counter[str] = field(default_factory=Counter)
    hop_layers: Counter[str] = field(default_factory=Counter)  # layers of the anchor → missed edges
    next_to_item: int = 0  # missed turns one edge from a returned item
    adjacent_turn: int = 0  # missed turns within ADJACENT_TURNS of a returned item, same session

    def row(self, name: str) -> str:
        missed = self.evidence - self.found
        cells = [f"{self.places[place]:>6} {self.places[place] / max(missed, 1):>4.0%}" for place in PLACES]
        return f"{name:<12} {self.questions:>5} {self.evidence:>6} {self.found:>6} {missed:>6} " + " ".join(cells)


def table(tallies: Mapping[str, Tally], k: int) -> str:
    head = f"{'group':<12} {'qs':>5} {'evid.':>6} {f'in {k}':>6} {'missed':>6} " + " ".join(
        f"{place:>11}" for place in PLACES
    )
    lines = [head, "-" * len(head), *(tally.row(name) for name, tally in tallies.items())]
    lines.append("")
    for name, tally in tallies.items():
        missed = max(tally.evidence - tally.found, 1)
        layers = ", ".join(f"{layer} {count}" for layer, count in tally.hop_layers.most_common()) or "none"
        lines.append(
            f"{name}: missed one edge from a returned item {tally.next_to_item} ({tally.next_to_item / missed:.0%}), "
            f"within {ADJACENT_TURNS} turns of a returned item {tally.adjacent_turn} "
            f"({tally.adjacent_turn / missed:.0%}); layers of anchor→missed edges (1 hop): {layers}"
        )
    return "\n".join(lines)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench locomo-why", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the LoCoMo-format JSON file the database holds")
    parser.add_argument("--database", required=True, help="the database a `locomo --keep` run left")
    parser.add_argument("--embedder", choices=("hashing", "sentence-transformers"), default="hashing")
    parser.add_argument("--conversations", type=int, help="only the first N conversations of the file")
    parser.add_argument("--k", type=int, default=10, help="the resonance limit (default 10)")
    parser.add_argument("--ranking", choices=("relevance", "seed"), help="default: the RESONANCE_RANKING setting")
    return parser.parse_args(argv)


def _edges(mind_id: str) -> dict[int, dict[int, tuple[str, ...]]]:
    from synapses.models import Edge

    edges: dict[int, dict[int, tuple[str, ...]]] = {}
    for source, target, layers in Edge.objects.filter(mind_id=mind_id).values_list("source_id", "target_id", "layers"):
        edges.setdefault(source, {})[target] = tuple(layers)
    return edges


def _conversation_tally(stored, *, k: int, ranking: str | None, tallies: dict[str, Tally]) -> None:
    from bench.locomo.dataset import CATEGORY_NAMES
    from synapses import constants
    from synapses.models import Knot
    from synapses.resonance.anchors import anchor_candidates, anchor_list_sizes, anchor_rows
    from synapses.resonance.service import resonance_of, search_vector

    mind = stored.mind
    knot_of_turn = {
        stored.turn_of[memory]: knot
        for knot, memory in Knot.objects.filter(mind_id=mind.pk).values_list("id", "memory_id")
        if memory in stored.turn_of
    }
    place_of = {turn.dia_id: (turn.session, index) for index, turn in enumerate(stored.conversation.turns)}
    edges = _edges(mind.pk)
    sizes = anchor_list_sizes(limit=k, relevance=True)  # what the relevance ranking weighs
    for question in stored.conversation.questions:
        answer = resonance_of(mind=mind, q=question.text, limit=k, ranking=ranking)
        returned_turns = {
            stored.turn_of[m] for item in answer["items"] for m in item["memory_ids"] if m in stored.turn_of
        }
        returned_knots = {item["knot_id"] for item in answer["items"]}
        vector = search_vector(mind=mind, q=question.text, mode=_default_mode(mind), intent="").vector
        weighed = anchor_candidates(mind_id=mind.pk, q=question.text, vector=vector, sizes=sizes)
        deep = {row[0] for row in anchor_rows(mind_id=mind.pk, q=question.text, vector=vector, candidates=DEEP_LIST)}
        found = question.evidence & returned_turns
        seen = Neighbourhood(
            weighed=frozenset(c.knot_id for c in weighed),
            deep=frozenset(deep),
            anchors=frozenset(c.knot_id for c in weighed[: constants.ANCHOR_COUNT]),
            edges=edges,
            found_sessions=frozenset(place_of[turn][0] for turn in found),
        )
        returned_places = {place_of[turn] for turn in returned_turns}
        for group in ("all", CATEGORY_NAMES[question.category]):
            tally = tallies.setdefault(group, Tally())
            tally.questions += 1
            tally.evidence += len(question.evidence)
            tally.found += len(found)
            for turn in question.evidence - found:
                knot = knot_of_turn.get(turn)
                place = miss_place(knot, place_of[turn][0], seen)
                tally.places[place] += 1
                if place == "1 hop":
                    tally.hop_layers.update("+".join(edges[a][knot]) for a in seen.anchors if knot in edges.get(a, {}))
                tally.next_to_item += knot is not None and knot in one_hop(returned_knots, edges)
                session, index = place_of[turn]
                tally.adjacent_turn += any(
                    s == session and abs(i - index) <= ADJACENT_TURNS for s, i in returned_places
                )


@contextmanager
def _questions_embedded_once(questions: Sequence[str]):
    """Embed every question in one batch and serve those from memory while the block runs.

    Each question is embedded twice (inside resonance, and for the candidate lists), and one
    call per text costs a semantic model far more on a busy machine than one batch.
    """
    from memories.embedders import get_embedder

    embedder = get_embedder()
    one_by_one = embedder.embed
    known = dict(zip(questions, one_by_one(list(questions)), strict=True)) if questions else {}
    embedder.embed = lambda texts: np.asarray([known[t] if t in known else one_by_one([t])[0] for t in texts])
    try:
        yield
    finally:
        del embedder.embed  # the instance attribute goes; the class's method is back


def _default_mode(mind):
    from synapses.resonance.service import mode_resolve

    return mode_resolve(mind, "")


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    from bench.database import django_setup

    django_setup(embedder=args.embedder)
    from django.contrib.auth import get_user_model

    from bench.locomo.cli import database_release, database_use
    from bench.locomo.dataset import dataset_load
    from bench.locomo.harness import LOCOMO_OWNER_EMAIL, conversation_find

    conversations = dataset_load(args.data, conversations=args.conversations)
    database_use(args.database)
    tallies: dict[str, Tally] = {}
    try:
        owner = get_user_model().objects.get(email=LOCOMO_OWNER_EMAIL)
        with _questions_embedded_once([q.text for c in conversations for q in c.questions]):
            for conversation in conversations:
                _conversation_tally(conversation_find(conversation, owner=owner), k=args.k, ranking=args.ranking,
                                    tallies=tallies)  # fmt: skip
    finally:
        database_release()
    order = ["all", "multi-hop", "temporal", "open-domain", "single-hop"]
    print(f"Where the evidence turns resonance misses at limit {args.k} are ({args.embedder}, {len(conversations)} "
          f"conversations; each missed turn counted once, in the first place that holds it):")  # fmt: skip
    print(table({name: tallies[name] for name in order if name in tallies}, args.k))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
