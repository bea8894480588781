"""GET /synapses/resonance, GET /synapses/modes and the resonance section of GET /memory/recall?q=
(the recall text is a golden file written by hand: tests/memories/golden/recall_resonance.txt)."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from memories.embedders import get_embedder
from memories.models import Memory
from synapses.models import Entity
from tests.factories import edge_make, knot_make, memory_make
from tests.vectors import at_cosine_to_query

GOLDEN = Path(__file__).parent.parent / "memories" / "golden"
Q = "chocolate"


@pytest.fixture(autouse=True)
def _seed_ranking(settings):
    """These worked examples are the original's ranking (presence × shell × sector); the
    relevance ranking has its own (tests/synapses/test_resonance_relevance.py)."""
    settings.SYNAPSE_RESONANCE_RANKING = "seed"


def _far(axis: int) -> list[float]:
    return at_cosine_to_query(Q, 0.0, axis=axis)


@pytest.fixture
def anna(mind):
    """chocolate (anchor by text, 5.0, joy) → sister (entity Anna + theme family, 4.0, trust;
    its memory has changed since and holds a newer knot) and → station (timeline, 2.0, said by
    the agent). Ranks: chocolate 5.0, sister 4.0 × 0.75 = 3.0, station 2.0 × 0.75 = 1.5."""
    m = mind.mind
    person = Entity.objects.create(mind=m, name="Anna")
    chocolate = knot_make(
        memory=memory_make(mind=m, content="Anna always brought chocolate", key="chocolate", salience=0.7),
        embedding=_far(1),
        presence=5.0,
        emotion="joy",
        entities=[person.pk],
        themes=["family"],
        embedding_model=get_embedder().name,
        linked=True,
    )
    sister_memory = memory_make(mind=m, content="Anna is my sister", key="sister", salience=0.7)
    sister = knot_make(
        memory=sister_memory,
        embedding=_far(2),
        presence=4.0,
        emotion="trust",
        entities=[person.pk],
        themes=["family"],
        embedding_model=get_embedder().name,
        linked=True,
    )
    edited = "Anna is my older sister"
    Memory.objects.filter(pk=sister_memory.pk).update(
        content=edited, content_hash=hashlib.sha256(edited.encode()).hexdigest()
    )
    sister_memory.refresh_from_db()
    knot_make(memory=sister_memory, embedding=_far(3), presence=4.0, embedding_model=get_embedder().name, linked=True)
    station = knot_make(
        memory=memory_make(mind=m, content="We met at the station", key="station", speaker="agent", salience=0.7),
        embedding=_far(4),
        presence=2.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    edge_make(
        source=chocolate,
        target=sister,
        weight_anchor=3.0,
        layers=("entity", "themes"),
        entities=[person.pk],
        themes=["family"],
    )
    edge_make(source=chocolate, target=station, weight_anchor=1.0, layers=("timeline",))
    now = timezone.now()
    for minutes, key in enumerate(("chocolate", "sister", "station")):
        Memory.objects.filter(mind=m, key=key).update(updated_at=now - timedelta(minutes=10 - minutes))
    return mind, {"chocolate": chocolate, "sister": sister, "station": station}


def test_resonance_answers_the_ranked_items_with_their_paths(anna):
    mind, k = anna
    response = mind.agent.get("/synapses/resonance", {"q": Q})
    assert response.status_code == 200
    body = response.json()
    assert [i["knot_id"] for i in body["items"]] == [k["chocolate"].pk, k["sister"].pk, k["station"].pk]
    assert [i["rank_weight"] for i in body["items"]] == pytest.approx([5.0, 3.0, 1.5])
    assert (body["anchor_count"], body["hop_depth"], body["mode"]) == (1, 1, "default")
    sister = body["items"][1]
    assert sister["superseded"] is True and sister["entities"] == ["Anna"]
    assert sister["path"][0]["shared_entities"] == ["Anna"] and sister["path"][0]["layers"] == ["entity", "themes"]
    assert sister["created_at"].endswith("Z")


def test_the_answer_is_the_resonance_serializers_output_field_for_field(anna):
    from synapses.api.resonance_serializers import ResonanceSerializer
    from synapses.resonance.service import resonance_of

    mind, _ = anna
    response = mind.agent.get("/synapses/resonance", {"q": Q, "mood": "joy", "limit": 10})
    assert response.status_code == 200
    # The serializer is the answer's schema; the view builds the same JSON without walking it.
    result = resonance_of(mind=mind.mind, q=Q, mood="joy", limit=10)
    assert any(item["path"] for item in result["items"]) and any(item["superseded"] for item in result["items"])
    expected = ResonanceSerializer(result).data
    assert response.json() == json.loads(json.dumps(expected))


def test_limit_defaults_to_three_and_goes_up_to_fifty(anna):
    mind, _ = anna
    assert len(mind.agent.get("/synapses/resonance", {"q": Q, "limit": "1"}).json()["items"]) == 1
    response = mind.agent.get("/synapses/resonance", {"q": Q, "limit": "51"})
    assert response.status_code == 400 and list(response.json()["error"]["fields"]) == ["limit"]


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({}, "q", "?q="),
        ({"q": Q, "mode": "disco"}, "mode", "werkstatt"),
        ({"q": Q, "mood": "grumpy"}, "mood", "freude"),
        ({"q": Q, "limt": "3"}, "limt", "Unknown parameter"),
        ({"q": "a\x00b"}, "q", "NUL"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(anna, params, field, words):
    mind, _ = anna
    response = mind.agent.get("/synapses/resonance", params)
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == [field] and words in fields[field][0]


def test_every_bad_parameter_is_named_at_once(anna):
    mind, _ = anna
    response = mind.agent.get("/synapses/resonance", {"q": "", "mode": "disco", "mood": "grumpy", "limit": "0"})
    assert sorted(response.json()["error"]["fields"]) == ["limit", "mode", "mood", "q"]


def test_an_outsider_gets_404_even_with_bad_parameters(anna, outsider):
    mind, _ = anna
    for params in ({"q": Q}, {"q": Q, "mode": "disco", "limit": "0"}):
        assert outsider.client.get("/synapses/resonance", {**params, "mind": mind.mind.pk}).status_code == 404
    assert outsider.client.get("/synapses/modes", {"mind": mind.mind.pk}).status_code == 404


def test_a_reader_may_ask_and_nobody_without_credentials(anna, reader, api):
    mind, _ = anna
    assert reader.client.get("/synapses/resonance", {"q": Q, "mind": mind.mind.pk}).status_code == 200
    assert api.get("/synapses/resonance", {"q": Q}).status_code == 401


def test_modes_lists_the_defaults_and_the_minds_own(mind):
    mind.mind.settings = {"modes": {"werkstatt": {"hop_depth": 1, "gravity_factor": 0.0}, "x": {"hop_depth": 9}}}
    mind.mind.save()
    body = mind.agent.get("/synapses/modes").json()
    modes = {m["name"]: m for m in body["modes"]}
    assert body["default"] == "paradox"
    assert modes["glut"] == {"name": "glut", "hop_depth": 3, "gravity_factor": 0.3, "source": "default"}
    assert modes["werkstatt"] == {"name": "werkstatt", "hop_depth": 1, "gravity_factor": 0.0, "source": "mind"}
    assert "x" not in modes and "hop_depth" in body["rejected"]["x"]
    assert mind.agent.get("/synapses/modes", {"q": "x"}).status_code == 400


# --- recall ------------------------------------------------------------------------------------


def test_recall_with_q_ends_with_the_resonance_section(anna):
    mind, _ = anna
    response = mind.agent.get("/memory/recall", {"q": Q})
    assert response.status_code == 200
    assert response.content.decode("utf-8") == (GOLDEN / "recall_resonance.txt").read_text(encoding="utf-8")


def test_recall_as_json_carries_the_resonance(anna):
    mind, k = anna
    body = mind.agent.get("/memory/recall", {"q": Q, "format": "json", "mood": "Freude"}).json()
    assert [i["knot_id"] for i in body["resonance"]["items"]] == [k["chocolate"].pk, k["sister"].pk, k["station"].pk]
    assert body["resonance"]["mood"] == "freude"
    assert "resonance" not in mind.agent.get("/memory/recall", {"format": "json"}).json()


def test_recall_refuses_an_unknown_mode_or_mood_only_when_there_is_a_query(anna):
    mind, _ = anna
    response = mind.agent.get("/memory/recall", {"q": Q, "mode": "disco"})
    assert response.status_code == 400 and "werkstatt" in response.json()["error"]["fields"]["mode"][0]
    assert mind.agent.get("/memory/recall", {"q": Q, "mood": "grumpy"}).status_code == 400
    assert mind.agent.get("/memory/recall", {"mode": "disco"}).status_code == 200
