"""GET /memory and the short lists: /memory/by-tag, /memory/unverified, /memory/expiring."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.models import Memory
from memories.selectors.memory import memories_expiring
from memories.services.memory import memory_store
from minds.access import caller_of
from minds.authentication import AgentPrincipal

pytestmark = pytest.mark.django_db


def store(mind, **fields):
    """A memory of `mind` written by its agent, straight through the service."""
    fields = {"category": "fact", **fields}
    return memory_store(mind=mind.mind, fields=fields, caller=caller_of(mind.agent_principal)).memory


@pytest.fixture
def mind(mind):
    """The cast's mind, plus the principal its Mind Key authenticates as (for service calls)."""
    key = mind.mind.keys.get()
    mind.agent_principal = AgentPrincipal(key=key)
    return mind


def set_updated(memory, at):
    Memory.objects.filter(pk=memory.pk).update(updated_at=at)


def ids(response):
    assert response.status_code == 200, response.json()
    return [item["id"] for item in response.json()["results"]]


def test_the_list_is_paged_and_newest_updated_first(mind):
    now = timezone.now()
    old = store(mind, content="old")
    new = store(mind, content="new")
    middle = store(mind, content="middle")
    set_updated(old, now - timedelta(days=3))
    set_updated(middle, now - timedelta(days=2))
    set_updated(new, now - timedelta(days=1))
    body = mind.agent.get("/memory").json()
    assert (body["count"], body["limit"], body["offset"]) == (3, 100, 0)
    assert [item["id"] for item in body["results"]] == [new.pk, middle.pk, old.pk]


def test_limit_and_offset_page_through_the_list(mind):
    now = timezone.now()
    memories = [store(mind, content=f"memory {n}") for n in range(5)]
    for age, memory in enumerate(memories):
        set_updated(memory, now - timedelta(minutes=age))
    body = mind.agent.get("/memory?limit=2&offset=2").json()
    assert (body["count"], body["limit"], body["offset"]) == (5, 2, 2)
    assert [item["id"] for item in body["results"]] == [memories[2].pk, memories[3].pk]


def test_a_bad_limit_is_a_400_naming_it(mind):
    response = mind.agent.get("/memory?limit=0")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["limit"]


def test_the_list_filters_by_category(mind):
    fact = store(mind, content="a fact")
    store(mind, category="note", content="a note")
    assert ids(mind.agent.get("/memory?category=fact")) == [fact.pk]


def test_the_tag_filter_is_case_insensitive(mind):
    docker = store(mind, content="uses docker", tags=["docker", "ops"])
    store(mind, content="uses podman", tags=["podman"])
    assert ids(mind.agent.get("/memory?tag=Docker")) == [docker.pk]
    assert ids(mind.agent.get("/memory?tag=%20DOCKER%20")) == [docker.pk]


def test_the_list_filters_by_priority_and_source(mind):
    high = store(mind, content="important", priority="high", source="tool")
    store(mind, content="ordinary")
    assert ids(mind.agent.get("/memory?priority=high")) == [high.pk]
    assert ids(mind.agent.get("/memory?source=tool")) == [high.pk]
    assert ids(mind.agent.get("/memory?source=tool&priority=low")) == []


@pytest.mark.parametrize(("value", "verified"), [("true", True), ("1", True), ("FALSE", False), ("0", False)])
def test_the_verified_filter_takes_true_false_1_and_0(owner, mind, value, verified):
    by_agent = store(mind, content="agent said")
    by_human = memory_store(
        mind=mind.mind, fields={"category": "fact", "content": "human said"}, caller=caller_of(owner.user)
    ).memory
    expected = by_human if verified else by_agent
    assert ids(mind.agent.get(f"/memory?verified={value}")) == [expected.pk]


def test_expired_memories_are_left_out_unless_asked_for(mind):
    now = timezone.now()
    live = store(mind, content="live", expires_at=now + timedelta(hours=1))
    expired = store(mind, content="expired", expires_at=now - timedelta(seconds=1))
    set_updated(live, now - timedelta(minutes=1))
    assert ids(mind.agent.get("/memory")) == [live.pk]
    assert ids(mind.agent.get("/memory?include_expired=false")) == [live.pk]
    assert ids(mind.agent.get("/memory?include_expired=true")) == [expired.pk, live.pk]


@pytest.mark.parametrize(
    ("query", "field", "hint"),
    [
        ("category=gossip", "category", "identity, preference, fact, project, skill, mistake, context, note"),
        ("priority=urgent", "priority", "low, normal, high, critical"),
        ("source=robot", "source", "user, agent, tool, system"),
        ("verified=yes", "verified", "true or false (1 or 0)"),
        ("include_expired=maybe", "include_expired", "true or false (1 or 0)"),
        ("tag=" + "t" * 65, "tag", "at most 64 characters"),
        ("tags=docker", "tags", "category, tag, priority, source, verified, include_expired"),
    ],
)
def test_a_bad_filter_is_a_400_naming_it_and_what_is_allowed(mind, query, field, hint):
    response = mind.agent.get(f"/memory?{query}")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == [field]
    assert hint in fields[field][0]


def test_every_bad_filter_is_named_at_once(mind):
    response = mind.agent.get("/memory?category=gossip&verified=yes")
    assert sorted(response.json()["error"]["fields"]) == ["category", "verified"]


def test_a_human_lists_a_mind_shared_for_reading(reader, mind):
    memory = store(mind, content="x")
    assert ids(reader.client.get(f"/memory?mind={mind.mind.pk}")) == [memory.pk]


def test_a_human_must_name_the_mind_to_list(owner, mind):
    response = owner.client.get("/memory")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["mind"]


def test_listing_does_not_grow_queries_with_the_number_of_memories(owner, mind):
    # Verified by a human, so every row joins verified_by: the join must not become one query per row.
    def human_store(n):
        memory_store(mind=mind.mind, fields={"category": "fact", "content": f"m{n}"}, caller=caller_of(owner.user))

    human_store(0)
    mind.agent.get("/memory")  # warm-up: the key's first use writes last_used_at and the throttle's cache row
    with CaptureQueriesContext(connection) as few:
        assert len(ids(mind.agent.get("/memory"))) == 1
    for n in range(1, 30):
        human_store(n)
    with CaptureQueriesContext(connection) as many:
        assert len(ids(mind.agent.get("/memory"))) == 30
    assert len(many.captured_queries) == len(few.captured_queries)


# --- /memory/by-tag --------------------------------------------------------------------------------


def test_by_tag_lists_memories_carrying_the_tag_in_any_case(mind):
    tagged = store(mind, content="family dinner", tags=["family"])
    store(mind, content="work", tags=["work"])
    assert ids(mind.agent.get("/memory/by-tag?tag=FAMILY")) == [tagged.pk]


def test_by_tag_needs_a_tag(mind):
    for query in ("", "?tag=", "?tag=%20"):
        response = mind.agent.get(f"/memory/by-tag{query}")
        assert response.status_code == 400
        assert response.json()["error"]["fields"] == {"tag": ["Name a tag: ?tag=<tag>."]}


def test_by_tag_leaves_expired_memories_out(mind):
    store(mind, content="old family news", tags=["family"], expires_at=timezone.now() - timedelta(seconds=1))
    assert ids(mind.agent.get("/memory/by-tag?tag=family")) == []


# --- /memory/unverified ----------------------------------------------------------------------------


def test_unverified_lists_what_no_human_confirmed_newest_first(owner, mind):
    now = timezone.now()
    older = store(mind, content="older claim")
    newer = store(mind, content="newer claim")
    memory_store(mind=mind.mind, fields={"category": "fact", "content": "confirmed"}, caller=caller_of(owner.user))
    store(mind, content="expired claim", expires_at=now - timedelta(seconds=1))
    set_updated(older, now - timedelta(hours=2))
    set_updated(newer, now - timedelta(hours=1))
    body = mind.agent.get("/memory/unverified").json()
    assert (body["count"], body["limit"]) == (2, 100)
    assert [item["id"] for item in body["results"]] == [newer.pk, older.pk]


def test_unverified_refuses_unknown_parameters(mind):
    response = mind.agent.get("/memory/unverified?category=fact")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["category"]


# --- /memory/expiring ------------------------------------------------------------------------------


def test_expiring_defaults_to_the_next_seven_days_soonest_first(mind):
    now = timezone.now()
    in_two_days = store(mind, content="a", expires_at=now + timedelta(days=2))
    in_one_hour = store(mind, content="b", expires_at=now + timedelta(hours=1))
    store(mind, content="c", expires_at=now + timedelta(days=8))
    store(mind, content="d", expires_at=now - timedelta(seconds=1))
    store(mind, content="e")
    assert ids(mind.agent.get("/memory/expiring")) == [in_one_hour.pk, in_two_days.pk]


@pytest.mark.parametrize("within", ["7200", "2h", "120m"])
def test_expiring_takes_seconds_or_a_unit(mind, within):
    now = timezone.now()
    soon = store(mind, content="a", expires_at=now + timedelta(minutes=90))
    store(mind, content="b", expires_at=now + timedelta(hours=3))
    assert ids(mind.agent.get(f"/memory/expiring?within={within}")) == [soon.pk]


def test_the_expiring_window_excludes_now_and_includes_now_plus_within(mind):
    now = timezone.now()
    at_now = store(mind, content="a", expires_at=now)
    at_end = store(mind, content="b", expires_at=now + timedelta(hours=2))
    store(mind, content="c", expires_at=now + timedelta(hours=2, microseconds=1))
    expiring = lambda within: [m.pk for m in memories_expiring(mind_id=mind.mind.pk, within=within, now=now)]  # noqa: E731
    assert expiring(timedelta(hours=2)) == [at_end.pk]
    assert at_now.pk not in expiring(timedelta(days=1))


def test_a_window_reaching_past_the_year_9999_lists_everything_that_expires(mind):
    far = store(mind, content="a", expires_at=timezone.now() + timedelta(days=365 * 5000))
    store(mind, content="b")
    assert ids(mind.agent.get("/memory/expiring?within=253402300000")) == [far.pk]


@pytest.mark.parametrize("within", ["soon", "0", "-5", "7y", "%00"])
def test_a_bad_within_is_a_400_naming_it(mind, within):
    response = mind.agent.get(f"/memory/expiring?within={within}")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["within"]
