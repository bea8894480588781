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


def test_an_agent_that_stores_and_asks_at_once_finds_what_it_stored(mind, stored):
    response = mind.agent.get("/synapses/resonance", {"q": "What did I note about Siemens?", "limit": 3})
    assert response.status_code == 200, response.content
    items = response.json()["items"]
    found = {item["content"] for item in items}
    assert {"Anna works at Siemens.", "Siemens is headquartered in Munich."} <= found, items
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
