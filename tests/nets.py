"""A small net written by hand for the net's pages (with the test client and in the browser):
four knots around one query, two entities, two edge pairs."""

from __future__ import annotations

from memories.embedders import get_embedder
from memories.models import Memory
from synapses.models import Entity, Knot
from tests.factories import edge_make, knot_make, memory_make
from tests.vectors import at_cosine_to_query

# The query the first three knots are near.
QUERY = "where does anna live"


def net_build(mind) -> dict:
    """Four knots: three near the query (the anchors), one far from it but very present and joined
    to the first by an edge pair; two entities, Anna (on knots a and b) and Schmidt (on c)."""
    the_mind = mind.mind
    anna = Entity.objects.create(mind=the_mind, name="Anna", aliases=["Annie"])
    schmidt = Entity.objects.create(mind=the_mind, name="Schmidt")
    knots = {}
    for name, cosine, present, entities, themes, category in [
        ("a", 0.95, 1.0, [anna.pk], ["family"], "fact"),
        ("b", 0.9, 0.9, [anna.pk], ["family"], "fact"),
        ("c", 0.85, 0.8, [schmidt.pk], ["work"], "project"),
        ("d", 0.0, 9.0, [], ["travel"], "preference"),
    ]:
        memory = memory_make(mind=the_mind, content=f"memory {name} about things", key=f"mem_{name}", salience=0.7)
        Memory.objects.filter(pk=memory.pk).update(category=category, tags=themes)
        memory.refresh_from_db()
        knots[name] = knot_make(
            memory=memory,
            embedding=at_cosine_to_query(QUERY, cosine, axis=10 + len(knots))
            if cosine
            else at_cosine_to_query(QUERY, 0.0, axis=3),
            presence=present,
            themes=themes,
            entities=entities,
            embedding_model=get_embedder().name,
            linked=True,
        )
        Knot.objects.filter(pk=knots[name].pk).update(category=category)
    edge_make(source=knots["a"], target=knots["d"], weight_anchor=5.0, layers=("embedding", "timeline"))
    edge_make(source=knots["d"], target=knots["a"], weight_anchor=4.0, layers=("embedding", "timeline"))
    edge_make(
        source=knots["a"],
        target=knots["b"],
        weight_anchor=3.0,
        layers=("entity", "themes"),
        entities=[anna.pk],
        themes=["family"],
    )
    edge_make(
        source=knots["b"],
        target=knots["a"],
        weight_anchor=3.0,
        layers=("entity", "themes"),
        entities=[anna.pk],
        themes=["family"],
    )
    return {"mind": mind, "knots": knots, "anna": anna, "schmidt": schmidt}
