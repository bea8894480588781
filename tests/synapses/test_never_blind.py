"""Never blind (docs/synapse-model.md §5, "Pending memories"): what an agent stored a moment ago
resonates before it is promoted, marked as not yet in the net, and a use of it is applied when it
is promoted. Over HTTP, as an agent following docs/agents.md does it: no `entities`, normal
priority, no waiting."""

from __future__ import annotations

import pytest

from memories.models import Memory
from synapses.models import Knot, MemoryKnot
from synapses.promotion.service import memories_promote

FACTS = ["Anna works at Siemens.", "Siemens is headquartered in Munich.", "Anna's sister Marie lives in Hamburg."]
# Everyday notes, some naming other people and places; none names Siemens.
DISTRACTORS = [
    "Bought oat milk and bread on the way home.",
    "The dentist appointment moved to Thursday at 9.",
    "Tom recommended a podcast about Roman history.",
    "Lisa's birthday party is in Cologne next month.",
    "The bike needs new brake pads.",
    "Watered the tomatoes on the balcony.",
    "Paul moved from Leipzig to Vienna last spring.",
    "Remember to renew the passport before June.",
    "The train to Frankfurt was forty minutes late.",
    "Finished the second chapter of the novel.",
    "Grandma's recipe uses three eggs, not two.",
    "The wifi password is on the fridge.",
    "Sarah likes her coffee black.",
    "Booked a table at the Italian place near the river.",
    "The kids start school again on Monday.",
    "Michael borrowed the ladder and still has it.",
    "Rent goes up by 40 euros from March.",
    "Jonas is learning to play the cello.",
    "The car's next inspection is due in autumn.",
    "Hiking in the Alps with Eva was exhausting but lovely.",
    "Need to call the landlord about the heating.",
    "Our neighbour in Dresden grows enormous pumpkins.",
    "The library closes early on Saturdays.",
    "Tried a new yoga class; the teacher is called Mia.",
    "The cat refuses the new food.",
    "Lukas works at a bakery in Bremen.",
    "Printer ink is running low.",
    "Sophie sent photos from her trip to Lisbon.",
    "The meeting notes are in the shared folder.",
    "Felix plays football every Wednesday evening.",
]


def _store(agent, content: str) -> str:
    response = agent.post("/memory", {"category": "fact", "content": content}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


@pytest.fixture
def stored(mind):
    """A fresh mind with the three facts and the thirty notes, nothing promoted."""
    assert len(DISTRACTORS) == 30
    ids = {content: _store(mind.agent, content) for content in [*FACTS, *DISTRACTORS]}
    assert not Knot.objects.filter(mind=mind.mind).exists()  # normal priority: not mature yet
    return ids


@pytest.mark.parametrize("ranking", ["relevance", "seed"])
def test_an_agent_that_stores_and_asks_at_once_finds_what_it_stored(mind, stored, settings, ranking):
    settings.SYNAPSE_RESONANCE_RANKING = ranking
    response = mind.agent.get("/synapses/resonance", {"q": "What did I note about Siemens?", "limit": 3})
    assert response.status_code == 200, response.content
    items = response.json()["items"]
    # Both name Siemens (a full-text and a vector match each): they lead, in either ranking.
    assert {item["content"] for item in items[:2]} == {"Anna works at Siemens.", "Siemens is headquartered in Munich."}
    for item in items:
        assert item["knot_id"] is None
        assert item["in_net"] is False
        assert item["memory_id"] == stored[item["content"]]
        assert item["path"] == [] and item["shell"] == 0


def test_the_recall_text_says_a_pending_memory_is_not_in_the_net_yet(mind, stored):
    response = mind.agent.get("/memory/recall", {"q": "What did I note about Siemens?"}, HTTP_ACCEPT="text/plain")
    assert response.status_code == 200
    text = response.content.decode()
    section = text[text.index("Resonance for:") :]
    assert '"Anna works at Siemens."' in section
    assert "(stored recently: not yet in the long-term net)" in section


def test_once_promoted_the_same_memories_come_from_the_net(mind, stored):
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    assert not Memory.objects.filter(mind=mind.mind, pending_row__isnull=False).exists()
    items = mind.agent.get("/synapses/resonance", {"q": "What did I note about Siemens?", "limit": 3}).json()["items"]
    found = {item["content"]: item for item in items}
    for content in ("Anna works at Siemens.", "Siemens is headquartered in Munich."):
        item = found[content]
        assert item["in_net"] is True
        assert item["knot_id"] == MemoryKnot.objects.get(memory_id=stored[content]).knot_id


def test_an_expired_pending_memory_does_not_resonate(mind, stored):
    Memory.objects.filter(pk=stored["Anna works at Siemens."]).update(expires_at="2000-01-01T00:00:00Z")
    items = mind.agent.get("/synapses/resonance", {"q": "What did I note about Siemens?", "limit": 3}).json()["items"]
    assert "Anna works at Siemens." not in {item["content"] for item in items}
    assert "Siemens is headquartered in Munich." in {item["content"] for item in items}


def test_another_minds_pending_memories_do_not_resonate(mind, other_mind, stored):
    items = other_mind.agent.get("/synapses/resonance", {"q": "What did I note about Siemens?"}).json()["items"]
    assert items == []


# --- `used` on a memory not yet in the net -------------------------------------------------------


def _offered(mind, q: str) -> list[dict]:
    return mind.agent.get("/synapses/resonance", {"q": q, "limit": 3}).json()["items"]


def test_a_use_of_a_pending_memory_is_recorded_and_applied_when_it_is_promoted(mind, stored):
    from django.utils import timezone

    from synapses.models import PendingUse
    from synapses.net.geometry import damp
    from synapses.tasks import promotion_sweep

    items = _offered(mind, "What did I note about Siemens?")
    work = next(item for item in items if item["content"] == "Anna works at Siemens.")
    answer = "Anna works at Siemens."  # the answer says just what the memory says: nearness 1
    response = mind.agent.post(
        "/synapses/used", {"answer": answer, "knot_ids": [], "memory_ids": [work["memory_id"]]}, format="json"
    )
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["outcome"] == "computed"
    assert [r["memory_id"] for r in report["recorded"]] == [work["memory_id"]]
    assert report["recorded"][0]["nearness"] == pytest.approx(1.0, abs=1e-3)
    assert (report["used"], report["reinforced"], report["hits"]) == (1, 0, [])
    # Used twice before its promotion: two uses wait.
    mind.agent.post("/synapses/used", {"answer": answer, "knot_ids": [], "memory_ids": [work["memory_id"]]},
                    format="json")  # fmt: skip
    assert PendingUse.objects.get(memory_id=work["memory_id"]).uses == 2

    # The memory matures (ten minutes without a write) and the sweep promotes it.
    memory = Memory.objects.get(pk=work["memory_id"])
    Memory.objects.filter(pk=memory.pk).update(updated_at=timezone.now() - timezone.timedelta(minutes=11))
    summary = promotion_sweep()
    assert summary["pending_uses_applied"] == 2
    knot = Knot.objects.get(pk=MemoryKnot.objects.get(memory_id=memory.pk).knot_id)
    # Two reinforcements of 0.1 on top of the salience it was created with.
    assert knot.weight_raw == pytest.approx(memory.salience + 0.2)
    assert knot.weight_anchor == pytest.approx(damp(memory.salience + 0.2))
    assert knot.activation_count == 3
    assert not PendingUse.objects.filter(memory_id=memory.pk).exists()


def test_an_unused_or_unknown_pending_memory_is_not_recorded(mind, other_mind, stored):
    from synapses.models import PendingUse

    foreign = other_mind.agent.post("/memory", {"category": "fact", "content": "Anna works at Siemens."},
                                    format="json").json()["id"]  # fmt: skip
    munich = stored["Siemens is headquartered in Munich."]
    body = {"answer": "The cat refuses the new food.", "knot_ids": [], "memory_ids": [munich, foreign]}
    report = mind.agent.post("/synapses/used", body, format="json").json()
    assert report["memories_not_found"] == [foreign]
    assert [r["memory_id"] for r in report["pending_nearness"]] == [munich]
    assert report["recorded"] == []
    assert not PendingUse.objects.exists()


def test_a_memory_id_that_is_no_memory_id_is_refused_naming_the_field(mind):
    response = mind.agent.post("/synapses/used", {"answer": "x", "knot_ids": [], "memory_ids": [5]}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"memory_ids.0": ["Must be a memory id (mem_…)."]}


def test_the_recall_page_explains_a_pending_memory_as_not_in_the_net_yet(owner, mind, stored):
    from tests.ui.conftest import logged_in

    response = logged_in(owner).get(f"/app/minds/{mind.mind.pk}/recall/", {"q": "What did I note about Siemens?"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Anna works at Siemens." in body
    assert "none yet: stored recently, not yet promoted into the long-term net" in body


def test_a_pending_memory_that_contradicts_a_knot_outranks_it_at_once(mind):
    older = _store(mind.agent, "Alice is allergic to peanuts.")
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    newer = _store(mind.agent, "Alice is not allergic to peanuts.")  # pending: not promoted
    items = mind.agent.get("/synapses/resonance", {"q": "Is Alice allergic to peanuts?", "limit": 2}).json()["items"]
    assert [(item["memory_id"], item["in_net"]) for item in items] == [(newer, False), (older, True)]
    # The knot's contradicting item has no knot yet: named by its memory.
    assert (items[1]["contradicted_by"], items[1]["contradicted_by_memory_id"]) == (None, newer)
    assert items[0]["contradicted_by_memory_id"] is None
