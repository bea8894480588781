"""manage.py rebuild_edges: a mind's edges dropped and formed again, oldest knot first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test.utils import override_settings

from synapses.models import Edge
from synapses.net.edges import knot_edges_form, mind_edges_rebuild
from synapses.net.geometry import EdgeParameters
from tests.factories import knot_make
from tests.vectors import at_cosine, axis

pytestmark = pytest.mark.django_db

WORKED = EdgeParameters(embedding_threshold=0.85)
START = datetime(2026, 1, 1, tzinfo=UTC)


def edge_table() -> dict[tuple[int, int], tuple[float, list[str]]]:
    return {(e.source_id, e.target_id): (round(e.weight_raw, 9), e.layers) for e in Edge.objects.all()}


def promoted_in_order(mind, specs: list[dict]) -> list:
    """Knots created one after the other, each forming its edges as promotion would."""
    knots = []
    for index, spec in enumerate(specs):
        knot = knot_make(mind=mind, created_at=START + timedelta(hours=index), **spec)
        knot_edges_form(knot=knot, params=WORKED)
        knots.append(knot)
    return knots


SPECS = [
    {"weight_anchor": 3.0, "entities": [1], "embedding": axis(0)},
    {"weight_anchor": 1.0, "entities": [1], "themes": ["x"], "embedding": at_cosine(0.9)},
    {"weight_anchor": 2.0, "themes": ["x"], "embedding": axis(2)},
    {"weight_anchor": 5.0, "entities": [1], "embedding": at_cosine(0.95)},
]


def test_a_rebuild_of_an_unchanged_mind_writes_the_edges_promotion_wrote(the_mind, other_mind):
    promoted_in_order(the_mind, SPECS)
    promoted_in_order(other_mind.mind, SPECS[:2])
    before = edge_table()

    result = mind_edges_rebuild(mind_id=the_mind.pk, params=WORKED)

    assert edge_table().keys() == before.keys() and edge_table() == before
    mine = Edge.objects.filter(mind=the_mind).count()
    assert (result.knots, result.edges_deleted, result.pairs_written) == (4, mine, mine // 2)
    # 0–1 entity+embedding, 0–3 entity+embedding, 1–2 themes, 1–3 entity+embedding; 2 and 0/3 share nothing.
    assert result.layer_counts == {"entity": 3, "embedding": 3, "themes": 1}


def test_a_rebuild_uses_todays_threshold_and_skips_inactive_knots(the_mind):
    first, second, third, fourth = promoted_in_order(the_mind, SPECS)
    first.presence.is_active = False
    first.presence.save()

    # second and fourth have cosine 0.9911: above 0.85 when promoted, not above 0.995.
    result = mind_edges_rebuild(mind_id=the_mind.pk, params=EdgeParameters(embedding_threshold=0.995))

    assert result.knots == 3
    assert {(s, t, tuple(layers)) for s, t, layers in Edge.objects.values_list("source_id", "target_id", "layers")} == {
        (third.pk, second.pk, ("themes",)),
        (second.pk, third.pk, ("themes",)),
        (fourth.pk, second.pk, ("entity",)),
        (second.pk, fourth.pk, ("entity",)),
    }


def test_the_command_rebuilds_and_prints_what_it_wrote(the_mind):
    promoted_in_order(the_mind, SPECS)
    out = StringIO()

    with override_settings(SYNAPSE_EMBEDDING_THRESHOLD=0.85):
        call_command("rebuild_edges", "--mind", the_mind.pk, stdout=out, stderr=StringIO())

    assert out.getvalue().strip() == (
        f"rebuilt the edges of {the_mind.pk}: 4 active knots replayed, 8 edge rows dropped, 4 pairs written "
        "(8 rows); pairs per layer: entity 3, embedding 3, themes 1"
    )


def test_the_command_names_an_unknown_mind(db):
    with pytest.raises(CommandError, match="No mind with id 'm_nope'"):
        call_command("rebuild_edges", "--mind", "m_nope", stdout=StringIO(), stderr=StringIO())
