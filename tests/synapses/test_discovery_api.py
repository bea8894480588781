"""Issue 26, acceptance 1 (the entity half), as a new user meets it over HTTP: a fresh mind, three
sentences and thirty everyday notes stored with no `entities` and normal priority, promoted; the
entities the net lists are the names of the three sentences, and nothing else comes from them.

Then the owner's control: discovery switched off finds nothing; a deleted discovered entity is
not found again.
"""

from __future__ import annotations

import pytest

from synapses.models import Edge, Entity, Knot
from synapses.promotion.service import memories_promote

pytestmark = pytest.mark.django_db

ENGLISH = ["Anna works at Siemens.", "Siemens is headquartered in Munich.", "Anna's sister Marie lives in Hamburg."]
GERMAN = ["Anna arbeitet bei Siemens.", "Siemens hat seinen Hauptsitz in München.",
          "Annas Schwester Marie wohnt in Hamburg."]  # fmt: skip
ENGLISH_DISTRACTORS = [
    "Buy oat milk and coffee filters on the way home.", "The dentist appointment moved to Thursday at ten.",
    "Tom recommended a hiking trail near Innsbruck.", "Call the landlord about the broken heating.",
    "The quarterly report is due at the end of the month.", "Lisa's birthday dinner is at the Italian place.",
    "Renew the car insurance before it expires.", "We watched a documentary about octopuses.",
    "The kids want pancakes on Sunday morning.", "Paul lent me his drill for the shelves.",
    "Remember to water the tomatoes twice a day.", "The train to Leipzig was delayed by forty minutes.",
    "My running shoes are worn out.", "Ask the neighbours to take in the parcel.",
    "The printer on the second floor is jammed again.", "Book a table for four for Saturday evening.",
    "Jonas started learning the guitar.", "The library books are due next week.",
    "Pick up the dry cleaning after work.", "The cat knocked a glass off the table.",
    "The budget meeting was cancelled.", "Try the new bakery near the station.",
    "Emma moved into a flat in Bristol.", "Change the smoke detector batteries.",
    "The weather was perfect for a bike ride.", "Send the invoice to the client by Friday.",
    "The plumber comes between eight and noon.", "Clean the gutters before the autumn storms.",
    "Our flight lands late, so we take a taxi.", "The soup needed more salt.",
]  # fmt: skip
GERMAN_DISTRACTORS = [
    "Auf dem Heimweg Hafermilch und Kaffeefilter kaufen.", "Der Zahnarzttermin ist auf Donnerstag um zehn verschoben.",
    "Tom hat eine Wanderung bei Innsbruck empfohlen.", "Den Vermieter wegen der kaputten Heizung anrufen.",
    "Der Quartalsbericht ist Ende des Monats fällig.", "Lisas Geburtstagsessen ist beim Italiener.",
    "Die Autoversicherung vor dem Ablauf verlängern.", "Wir haben eine Dokumentation über Kraken gesehen.",
    "Die Kinder wollen am Sonntag Pfannkuchen.", "Paul hat mir seine Bohrmaschine für die Regale geliehen.",
    "Die Tomaten zweimal am Tag gießen.", "Der Zug nach Leipzig hatte vierzig Minuten Verspätung.",
    "Meine Laufschuhe sind durchgelaufen.", "Die Nachbarn bitten, das Paket anzunehmen.",
    "Der Drucker im zweiten Stock klemmt schon wieder.", "Für Samstagabend einen Tisch für vier reservieren.",
    "Jonas hat angefangen, Gitarre zu lernen.", "Die Bücher der Bibliothek sind nächste Woche fällig.",
    "Nach der Arbeit die Reinigung abholen.", "Die Katze hat ein Glas vom Tisch gestoßen.",
    "Die Budgetbesprechung wurde abgesagt.", "Die neue Bäckerei am Bahnhof ausprobieren.",
    "Emma ist in eine Wohnung in Bremen gezogen.", "Die Batterien der Rauchmelder wechseln.",
    "Das Wetter war perfekt für eine Radtour.", "Die Rechnung bis Freitag an den Kunden schicken.",
    "Der Klempner kommt zwischen acht und zwölf.", "Die Dachrinne vor den Herbststürmen reinigen.",
    "Unser Flug landet spät, also nehmen wir ein Taxi.", "Die Suppe brauchte mehr Salz.",
]  # fmt: skip


def _store(agent, contents: list[str], prefix: str = "note") -> dict[str, str]:
    ids = {}
    for number, content in enumerate(contents):
        response = agent.post("/memory", {"key": f"{prefix}-{number}", "content": content, "category": "fact"},
                              format="json")  # fmt: skip
        assert response.status_code == 201, response.json()
        assert response.json()["entities"] == []
        ids[content] = response.json()["id"]
    return ids


def _entity_names(agent) -> set[str]:
    body = agent.get("/synapses/entities?limit=500").json()
    return {entity["name"] for entity in body["results"]}


def _knot_entities(agent) -> dict[str, set[str]]:
    body = agent.get("/synapses/knots?limit=500").json()
    return {knot["memory_id"]: set(knot["entities"]) for knot in body["results"]}


@pytest.mark.parametrize(
    ("sentences", "distractors", "expected", "never"),
    [
        (ENGLISH, ENGLISH_DISTRACTORS, {"Anna", "Siemens", "Munich", "Marie", "Hamburg"}, {"sister"}),
        (GERMAN, GERMAN_DISTRACTORS, {"Anna", "Siemens", "München", "Marie", "Hamburg"}, {"Schwester", "Hauptsitz"}),
    ],
    ids=["en", "de"],
)
def test_the_names_of_three_sentences_become_the_entities_and_nothing_else(
    mind, sentences, distractors, expected, never
):
    # Interleaved, as a day's notes are.
    contents = [*distractors[:10], sentences[0], *distractors[10:20], sentences[1], *distractors[20:], sentences[2]]
    ids = _store(mind.agent, contents)
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    assert Knot.objects.filter(mind=mind.mind).count() == len(contents)

    listed = _entity_names(mind.agent)
    assert expected <= listed
    assert not {name.casefold() for name in never} & {name.casefold() for name in listed}
    knots = _knot_entities(mind.agent)
    from_sentences = set().union(*(knots[ids[sentence]] for sentence in sentences))
    assert from_sentences == expected
    # Every other entity comes from a distractor that writes it.
    for name in listed - expected:
        assert any(name in text for text in distractors), name


def test_a_mind_whose_owner_switched_discovery_off_gets_only_the_given_names(mind, owner):
    response = mind.agent.patch("/synapses/discovery", {"enabled": False}, format="json")
    assert response.status_code == 403  # the owner decides, not an agent
    response = owner.client.patch(f"/synapses/discovery?mind={mind.mind.pk}", {"enabled": False}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"enabled": False, "ignored": []}
    _store(mind.agent, ENGLISH)
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    assert _entity_names(mind.agent) == set()
    assert mind.agent.get("/synapses/discovery").json()["enabled"] is False


def test_a_deleted_discovered_entity_is_ignored_by_the_next_promotions(mind, owner):
    _store(mind.agent, ENGLISH[:1])
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    siemens = Entity.objects.get(mind=mind.mind, name="Siemens")
    knot = Knot.objects.get(mind=mind.mind)
    assert siemens.pk in knot.entities
    assert {"id": siemens.pk, "name": "Siemens", "rule": "mid-sentence"} in knot.magnets["entities"]

    assert mind.agent.delete(f"/synapses/entities/{siemens.pk}").status_code == 403  # a person decides
    response = owner.client.delete(f"/synapses/entities/{siemens.pk}?mind={mind.mind.pk}")
    assert response.status_code == 200, response.json()
    assert response.json()["knots_changed"] == 1
    knot.refresh_from_db()
    assert siemens.pk not in knot.entities
    assert all(found["id"] != siemens.pk for found in knot.magnets["entities"])
    assert mind.agent.get("/synapses/discovery").json()["ignored"] == ["siemens"]

    response = mind.agent.post("/memory", {"key": "later", "content": "Siemens opened a plant in Munich.",
                                           "category": "fact"}, format="json")  # fmt: skip
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    assert _entity_names(mind.agent) == {"Anna", "Munich"}


def test_a_german_noun_used_as_a_name_again_in_a_later_promotion_reaches_the_earlier_knot(mind):
    first = _store(mind.agent, GERMAN[:1])[GERMAN[0]]
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    assert _entity_names(mind.agent) == {"Anna"}  # one bare "Siemens" is no evidence yet
    second = _store(mind.agent, GERMAN[1:2], prefix="later")[GERMAN[1]]
    memories_promote(mind_id=mind.mind.pk, now_all=True)
    assert _entity_names(mind.agent) == {"Anna", "Siemens", "München"}
    knots = {knot.memory_id: knot for knot in Knot.objects.filter(mind=mind.mind)}
    siemens = Entity.objects.get(mind=mind.mind, name="Siemens")
    assert siemens.pk in knots[first].entities and siemens.pk in knots[second].entities
    assert {"id": siemens.pk, "name": "Siemens", "rule": "recurrence"} in knots[first].magnets["entities"]
    joined = Edge.objects.get(mind=mind.mind, source=knots[second], target=knots[first])
    assert siemens.pk in joined.shared_entities
