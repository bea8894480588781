"""The interim memory graph, pure: an edge for every pair of nodes that share tags, and the
connected components. No Django: ids and tags in, edges and counts out (docs/api-memory.md,
"Graph")."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

# Most edges /memory/graph returns, heaviest first; more would not be drawable anyway (edges).
GRAPH_MAX_EDGES = 5000
# Decimal places of an edge's weight in the answer.
WEIGHT_DECIMALS = 4


@dataclass(frozen=True)
class GraphEdge:
    source: str
    target: str
    weight: float
    shared_tags: list[str]


@dataclass(frozen=True)
class TagGraph:
    edges: list[GraphEdge]  # the heaviest `max_edges`
    edge_count: int  # all edges found
    components: int  # connected components; an isolated node is one
    isolated: int  # nodes without an edge


def tag_graph(nodes: list[tuple[str, list[str]]], *, max_edges: int = GRAPH_MAX_EDGES) -> TagGraph:
    """An edge for every pair of nodes sharing tags, weight = shared / max(len(tags_a), len(tags_b)).

    `nodes` is `[(id, tags)]` (a tag given twice counts once). Counting runs in numpy over an n×n
    matrix (n ≤ 1000), so a mind whose memories all share one tag costs milliseconds, not a
    Python loop per pair. Edges come heaviest first, ties in node order; `source` is the node
    that comes first in `nodes`.
    """
    count = len(nodes)
    shared = np.zeros((count, count), dtype=np.int32)
    by_tag: dict[str, list[int]] = defaultdict(list)
    for position, (_, tags) in enumerate(nodes):
        for tag in set(tags):
            by_tag[tag].append(position)
    for positions in by_tag.values():
        if len(positions) > 1:
            index = np.array(positions)
            shared[np.ix_(index, index)] += 1
    sources, targets = np.nonzero(np.triu(shared, k=1))
    sizes = np.array([len(set(tags)) for _, tags in nodes] or [0], dtype=np.float64)
    weights = np.round(shared[sources, targets] / np.maximum(sizes[sources], sizes[targets]), WEIGHT_DECIMALS)
    order = np.lexsort((targets, sources, -weights))[:max_edges]
    edges = []
    for position in order:
        (id_a, tags_a), (id_b, tags_b) = nodes[sources[position]], nodes[targets[position]]
        theirs = set(tags_b)
        edges.append(
            GraphEdge(
                source=id_a,
                target=id_b,
                weight=float(weights[position]),
                shared_tags=[tag for tag in dict.fromkeys(tags_a) if tag in theirs],
            )
        )
    adjacent = (shared > 0) & ~np.eye(count, dtype=bool)
    return TagGraph(
        edges=edges,
        edge_count=len(sources),
        components=components_count(adjacent),
        isolated=int(np.count_nonzero(~adjacent.any(axis=1))),
    )


def components_count(adjacent: np.ndarray) -> int:
    """Connected components of a symmetric boolean adjacency matrix (breadth-first, row-wise)."""
    return len(components_of(adjacent))


def components_of(adjacent: np.ndarray) -> list[list[int]]:
    """The connected components of a symmetric boolean adjacency matrix, as lists of node
    positions (each ascending), in the order of their first node."""
    unvisited = np.ones(len(adjacent), dtype=bool)
    found: list[list[int]] = []
    for start in range(len(adjacent)):
        if not unvisited[start]:
            continue
        unvisited[start] = False
        member = np.zeros(len(adjacent), dtype=bool)
        member[start] = True
        frontier = member.copy()
        while frontier.any():
            frontier = adjacent[frontier].any(axis=0) & unvisited
            unvisited &= ~frontier
            member |= frontier
        found.append([int(position) for position in np.flatnonzero(member)])
    return found
