"""The memory field rules (memories.services.validation): one home for the API, the admin and
import, each answering the same field names and messages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from memories.limits import MAX_TAG_CHARS, MAX_TAGS
from memories.models import CURRENT_SQL, Memory, current_filter
from memories.services.memory import memories_insert, memory_build
from memories.services.provenance import import_downgrades, import_provenance, import_verified, write_source
from memories.services.validation import MEMORY_FIELD_RULES, import_items_clean, memory_fields_clean
from memoryproject.core.domain import Conflict, ValidationFailed
from tests.memories.insights_support import agent_caller, human_caller, remember

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def refusal(data, **options) -> dict:
    with pytest.raises(ValidationFailed) as refused:
        memory_fields_clean(data, **options)
    return refused.value.fields


def test_every_broken_field_is_named_in_the_order_of_the_memory_object():
    fields = refusal({"content": 5, "tags": ["ok", "", None], "confidence": 2, "category": "gossip"})
    assert fields == {
        "category": ['"gossip" is not allowed. Use one of: identity, preference, fact, project, skill, mistake, '
                     "context, note."],
        "content": ["Must be a string."],
        "tags.1": ["This field may not be blank."],
        "tags.2": ["This field may not be null."],
        "confidence": ["Ensure this value is less than or equal to 1.0."],
    }  # fmt: skip


def test_a_store_needs_category_and_content_and_an_update_needs_no_field():
    assert refusal({}) == {"category": ["This field is required."], "content": ["This field is required."]}
    assert memory_fields_clean({}, partial=True) == {}


def test_an_unknown_field_is_refused_before_anything_else_and_echoed_output_fields_are_dropped():
    assert refusal({"category": "gossip", "colour": "blue"}) == {
        "colour": [
            "Unknown field. Memory fields are: category, key, content, tags, priority, source, speaker, confidence, "
            "salience, expires_at, entities, event_time, event_precision, emotion, attributes."
        ]
    }
    cleaned = memory_fields_clean({"category": "fact", "content": "x", "id": "mem_1", "verified": True})
    assert cleaned == {"category": "fact", "content": "x"}


def test_values_are_cleaned_as_they_are_stored():
    cleaned = memory_fields_clean(
        {
            "category": " fact ",
            "key": " city ",
            "content": "  Berlin  ",
            "tags": ["Home", "home", " Work "],
            "entities": ["Anna", "anna", "Ben"],
            "confidence": 1,
            "expires_at": 0,
            "emotion": None,
        }
    )
    assert cleaned == {
        "category": "fact",
        "key": "city",
        "content": "Berlin",
        "tags": ["home", "work"],
        "entities": ["Anna", "Ben"],
        "confidence": 1.0,
        "expires_at": datetime(1970, 1, 1, tzinfo=UTC),
        "emotion": "",
    }


def test_a_key_breaking_two_rules_names_both():
    assert refusal({"key": "bad key" + "x" * 130}, partial=True) == {
        "key": [
            "Invalid key. Use 1–128 characters of letters, digits, _ . : -, starting with a letter or digit "
            "(snake_case recommended, e.g. preference_communication).",
            "Ensure this field has no more than 128 characters.",
        ]
    }


def test_values_no_json_text_can_hold_are_refused_not_crashed_on():
    huge = 10**400
    data = {"attributes": {"a": "\ud800"}, "confidence": huge, "content": "a\x00b", "expires_at": huge}
    assert refusal(data, partial=True) == {
        "content": ["Null characters are not allowed."],
        "confidence": ["Must be a number."],
        "expires_at": [f"{huge!r} is out of range. Use ISO 8601 (2026-06-27T10:00:00Z) or epoch seconds."],
        "attributes": ["Surrogate characters are not allowed: U+D800."],
    }


def test_a_body_that_is_not_an_object_is_named_as_such():
    assert refusal(["fact"]) == {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}


def test_import_items_are_checked_with_their_times_and_a_repeated_key_names_the_first():
    items = [
        {"category": "fact", "key": "city", "content": "Berlin", "created_at": "2026-05-01T00:00:00Z"},
        {"category": "fact", "key": "city", "content": "Hamburg"},
        {"category": "fact", "content": "x", "updated_at": "2026-04-01", "created_at": "2026-05-01", "verified": 1},
        "not an object",
    ]
    with pytest.raises(ValidationFailed) as refused:
        import_items_clean(items, now=NOW)
    assert refused.value.fields == {
        1: {"key": ["memories.0 has the same category and key; keep one of them."]},
        2: {"verified": ["Must be true or false."]},
        3: {"body": ["Each memory must be a JSON object."]},
    }


def test_an_imported_time_in_the_future_or_an_update_before_creation_is_refused():
    items = [
        {"category": "fact", "content": "a", "created_at": "2026-06-02T00:00:00Z"},
        {"category": "fact", "content": "b", "created_at": "2026-05-02", "updated_at": "2026-05-01"},
    ]
    with pytest.raises(ValidationFailed) as refused:
        import_items_clean(items, now=NOW)
    assert refused.value.fields == {
        0: {"created_at": ["created_at lies in the future; the latest accepted is 2026-06-01T12:05:00+00:00."]},
        1: {"updated_at": ["updated_at is before created_at; a memory cannot change before it exists."]},
    }


@pytest.mark.django_db
def test_over_http_a_lone_surrogate_and_a_huge_number_answer_400_naming_the_field(mind):
    body = '{"category": "fact", "content": "x", "attributes": {"a": "\\ud800"}, "salience": 1' + "0" * 400 + "}"
    response = mind.agent.post("/memory", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "salience": ["Must be a number."],
        "attributes": ["Surrogate characters are not allowed: U+D800."],
    }
    assert not Memory.objects.exists()


# --- provenance --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_store_refuses_claims_an_import_downgrades(owner, mind):
    agent, human = agent_caller(mind.mind), human_caller(owner.user)
    assert (write_source(agent, None), write_source(agent, "tool"), write_source(human, None)) == (
        "agent",
        "tool",
        "user",
    )
    for caller, claim in ((agent, "user"), (human, "agent")):
        with pytest.raises(ValidationError) as refused:
            write_source(caller, claim)
        assert list(refused.value.message_dict) == ["source"]
    agents_import = import_provenance(agent, source="user", speaker=None)
    assert (agents_import.source, agents_import.speaker) == ("agent", "user")
    humans_import = import_provenance(human, source="agent", speaker=None)
    assert (humans_import.source, humans_import.speaker) == ("agent", None)
    assert import_verified(agent, source="agent", verified=True) is False
    assert import_verified(human, source="user", verified=None) is True
    assert import_verified(human, source="agent", verified=None) is False
    assert import_downgrades(agent, source="user", verified=None) is True
    assert import_downgrades(agent, source="tool", verified=True) is True
    assert import_downgrades(agent, source="tool", verified=None) is False
    assert import_downgrades(human, source="user", verified=True) is False


# --- one helper each -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_bulk_insert_that_meets_a_taken_key_is_a_conflict_with_the_given_message(owner, mind):
    human = human_caller(owner.user)
    remember(mind.mind, human, category="fact", key="city", content="Berlin")
    twin = memory_build(
        mind=mind.mind, fields={"category": "fact", "content": "Hamburg"}, key="city", source="user", speaker=None,
        turn_id="", created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    with pytest.raises(Conflict, match="^Send it again.$"):
        memories_insert([twin], conflict_message="Send it again.")
    assert Memory.objects.filter(mind=mind.mind, key="city").values_list("content", flat=True).get() == "Berlin"


@pytest.mark.django_db
def test_the_raw_sql_of_not_expired_keeps_exactly_the_rows_current_filter_keeps(owner, mind):
    human = human_caller(owner.user)
    for key, expires_at in (("never", None), ("past", "2026-05-01T00:00:00Z"), ("future", "2026-07-01T00:00:00Z")):
        remember(mind.mind, human, category="fact", key=key, content=key, expires_at=expires_at)
    with connection.cursor() as cursor:
        # CURRENT_SQL is a constant of the code, `now` a parameter.
        cursor.execute(f"SELECT key FROM memories_memory WHERE {CURRENT_SQL} ORDER BY key", {"now": NOW})  # noqa: S608
        by_sql = [key for (key,) in cursor.fetchall()]
    by_orm = list(Memory.objects.filter(current_filter(NOW)).order_by("key").values_list("key", flat=True))
    assert by_sql == by_orm == ["future", "never"]


@pytest.mark.django_db
def test_a_store_records_its_writes_on_the_span_under_the_tables_postgresql_has(mind):
    response = mind.agent.post(
        "/memory", {"category": "fact", "content": "Anna is my sister"}, format="json", HTTP_X_TURN_ID="T-tables"
    )
    assert response.status_code == 201, response.content
    rows = [row for span in mind.agent.get("/log/turns/T-tables").json()["spans"] for row in span["rows"]]
    written = [(row["content"]["table"], row["content"]["operation"]) for row in rows if row["kind"] == "db_write"]
    assert written == [("memories_memory", "insert"), ("memories_memoryaudit", "insert")]
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
    assert {"memories_memory", "memories_memoryaudit"} <= tables


_JSON = st.recursive(
    # JSON may carry what no text column holds: a lone surrogate (escaped), NUL, a 400-digit number.
    st.none()
    | st.booleans()
    | st.integers()
    | st.just(10**400)
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["\ud800", "a\x00", " "]),
    lambda inner: st.lists(inner, max_size=25) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=30,
)
_NAMES = st.sampled_from([*MEMORY_FIELD_RULES, "id", "created_at", "colour"])


@settings(max_examples=300, deadline=None)
@given(data=st.dictionaries(_NAMES, _JSON, max_size=8) | _JSON, partial=st.booleans())
def test_any_json_is_either_cleaned_within_the_limits_or_refused_naming_its_fields(data, partial):
    try:
        cleaned = memory_fields_clean(data, partial=partial)
    except ValidationFailed as refused:  # nothing else may escape: no 500 for any body
        given_names = set(data) if isinstance(data, dict) else set()
        named = {name if name in given_names else name.split(".")[0] for name in refused.fields}
        assert named and named <= {*MEMORY_FIELD_RULES, "non_field_errors"} | given_names
        return
    assert set(cleaned) <= set(MEMORY_FIELD_RULES)
    assert len(cleaned.get("tags", [])) <= MAX_TAGS
    assert all(len(tag) <= MAX_TAG_CHARS and tag == tag.lower().strip() for tag in cleaned.get("tags", []))
    assert 0.0 <= cleaned.get("confidence", 0.0) <= 1.0
    if not partial:
        assert {"category", "content"} <= set(cleaned)
