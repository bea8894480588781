"""GET /memory/search (hybrid) and GET /memory/semantic-search (vectors only)."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote_from_bytes, unquote_to_bytes

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bench.fulltext import text_ranking
from memories.fusion import RRF_K, Ranked, rrf_fuse
from memories.models import Memory
from memories.selectors.search import Candidate, TextQuery, text_query
from memories.services.memory import memory_store
from minds.access import caller_of
from tests.embedding_server import fake_server_fixture  # noqa: F401 — a fixture

pytestmark = pytest.mark.django_db


def remember(mind, content: str, **fields) -> Memory:
    fields = {"category": "fact", "content": content, **fields}
    return memory_store(mind=mind.mind, fields=fields, caller=caller_of(mind.mind.owner)).memory


def search(client, q: str | None = None, **params):
    if q is not None:
        params["q"] = q
    return client.get("/memory/search", params)


def contents(response) -> list[str]:
    return [result["content"] for result in response.json()["results"]]


def text_matched(response) -> list[str]:
    return [result["content"] for result in response.json()["results"] if "text" in result["matched"]]


# --- full text ---------------------------------------------------------------------------------


def test_a_lower_case_german_word_finds_the_capitalised_noun(mind):
    remember(mind, "Insolvenz der Firma Müller angemeldet")
    remember(mind, "Office is in Berlin")
    response = search(mind.agent, "insolvenz")
    assert response.status_code == 200
    assert text_matched(response) == ["Insolvenz der Firma Müller angemeldet"]
    assert response.json()["results"][0]["content"] == "Insolvenz der Firma Müller angemeldet"


def test_english_stemming_finds_other_forms_of_a_word(mind):
    remember(mind, "We deployed the new release on Friday")
    remember(mind, "Deploy the app with make deploy")
    remember(mind, "Lunch is at noon")
    assert sorted(text_matched(search(mind.agent, "deploy"))) == [
        "Deploy the app with make deploy",
        "We deployed the new release on Friday",
    ]
    assert sorted(text_matched(search(mind.agent, "deploying"))) == [
        "Deploy the app with make deploy",
        "We deployed the new release on Friday",
    ]


def test_german_stemming_finds_plural_and_singular(mind):
    remember(mind, "Die Häuser am See sind verkauft")
    remember(mind, "Alle Rechnungen wurden bezahlt")
    assert text_matched(search(mind.agent, "Haus")) == ["Die Häuser am See sind verkauft"]
    assert text_matched(search(mind.agent, "Rechnung")) == ["Alle Rechnungen wurden bezahlt"]


def test_english_and_german_words_are_found_in_one_query(mind):
    remember(mind, "Insolvenz der Firma Müller angemeldet")
    remember(mind, "The insolvency lawyer called back")
    assert sorted(text_matched(search(mind.agent, "insolvenz OR insolvency"))) == [
        "Insolvenz der Firma Müller angemeldet",
        "The insolvency lawyer called back",
    ]


def test_websearch_syntax_quotes_a_phrase_and_excludes_a_word(mind):
    remember(mind, "new release went to production")
    remember(mind, "new release went to staging")
    remember(mind, "release of the new logo")
    response = search(mind.agent, '"new release" -staging')
    assert text_matched(response) == ["new release went to production"]


def test_plain_words_are_alternatives_and_the_memory_holding_more_of_them_ranks_first(mind):
    # Changed by the natural-language rule: plain words used to be all required (AND).
    remember(mind, "Anna likes tea")
    remember(mind, "Anna likes chocolate")
    remember(mind, "Tom likes coffee")
    assert text_matched(search(mind.agent, "anna chocolate")) == ["Anna likes chocolate", "Anna likes tea"]
    assert sorted(text_matched(search(mind.agent, "chocolate OR tea"))) == ["Anna likes chocolate", "Anna likes tea"]


def test_a_natural_language_question_matches_without_its_stop_words(mind):
    remember(mind, "Caroline: I went to a support group yesterday, it was so powerful.")
    remember(mind, "Melanie: the kids and I went to the beach.")
    question = "When did Caroline go to the LGBTQ support group?"
    assert text_matched(search(mind.agent, question)) == [
        "Caroline: I went to a support group yesterday, it was so powerful."
    ]


def test_stop_words_alone_match_nothing(mind):
    remember(mind, "the cat and the hat")
    remember(mind, "die Katze und der Hut")
    assert text_matched(search(mind.agent, "the and")) == []
    assert text_matched(search(mind.agent, "und der")) == []


def test_an_excluded_word_leaves_out_every_memory_holding_it_whatever_the_other_words(mind):
    remember(mind, "Anna likes tea")
    remember(mind, "Anna likes chocolate")
    assert text_matched(search(mind.agent, "anna tea -chocolate")) == ["Anna likes tea"]
    assert text_matched(search(mind.agent, '-"likes chocolate" anna')) == ["Anna likes tea"]


def test_a_phrase_is_an_alternative_of_its_own_and_keeps_its_word_order(mind):
    remember(mind, "release notes are ready")
    remember(mind, "notes about the release today")
    remember(mind, "Anna went home")
    assert text_matched(search(mind.agent, '"release notes"')) == ["release notes are ready"]
    assert text_matched(search(mind.agent, '"release notes" anna')) == ["release notes are ready", "Anna went home"]


def test_a_query_splits_into_plain_words_phrases_and_excluded_terms():
    assert text_query('When did "support group" -tea OR x -"big house" or "open') == TextQuery(
        words="When did x", phrases='"support group" OR "open"', excluded='tea OR "big house"'
    )
    assert text_query("co-op - -") == TextQuery(words="co-op - -", phrases="", excluded="")


def test_the_text_selector_returns_the_ids_of_the_text_list_best_first(mind):
    tea = remember(mind, "Anna likes tea")
    both = remember(mind, "Anna likes tea and chocolate")
    remember(mind, "Tom likes coffee")
    assert text_ranking(mind_id=mind.mind.pk, q="chocolate tea", limit=20) == [both.pk, tea.pk]
    assert text_ranking(mind_id=mind.mind.pk, q="chocolate tea", limit=1) == [both.pk]


def test_tags_and_key_are_searched_as_well_as_content(mind):
    remember(mind, "She prefers mornings", tags=["chronotype"])
    remember(mind, "Something else entirely", key="favourite_espresso_bar")
    assert text_matched(search(mind.agent, "chronotype")) == ["She prefers mornings"]
    assert text_matched(search(mind.agent, "espresso")) == ["Something else entirely"]


def test_the_better_text_match_ranks_first(mind):
    remember(mind, "postgres notes: the weekly report mentions postgres once")
    remember(mind, "postgres postgres postgres: tuning postgres for postgres")
    response = search(mind.agent, "postgres")
    assert text_matched(response)[0] == "postgres postgres postgres: tuning postgres for postgres"


# --- vectors and fusion --------------------------------------------------------------------------


def test_a_misspelt_word_is_found_by_vector_similarity_alone(mind):
    remember(mind, "deployment pipeline broke")
    response = search(mind.agent, "deploymnt")
    assert response.status_code == 200
    [result] = response.json()["results"]
    assert result["content"] == "deployment pipeline broke"
    assert result["matched"] == ["vector"]
    assert result["score"] == pytest.approx(1 / (RRF_K + 1))


def test_a_memory_found_by_both_lists_scores_both_ranks(mind):
    both = remember(mind, "zebra crossing")
    vector_only = remember(mind, "zebroid")
    response = search(mind.agent, "zebra")
    results = response.json()["results"]
    assert [(r["id"], r["matched"]) for r in results] == [(both.pk, ["text", "vector"]), (vector_only.pk, ["vector"])]
    # "zebra crossing" is the only text hit (rank 1) and the nearest vector (rank 1); "zebroid"
    # shares three trigrams with the query, so it is the second vector.
    assert results[0]["score"] == pytest.approx(2 / (RRF_K + 1))
    assert results[1]["score"] == pytest.approx(1 / (RRF_K + 2))


def test_unrelated_memories_are_not_returned(mind):
    remember(mind, "Office is in Berlin")
    response = search(mind.agent, "chocolate")
    assert response.json() == {"query": "chocolate", "limit": 20, "count": 0, "results": []}


def _candidate(pk: str, minutes_ago: int) -> Candidate:
    return Candidate(pk=pk, updated_at=timezone.now() - timedelta(minutes=minutes_ago))


def test_fusion_adds_reciprocal_ranks_and_breaks_ties_by_best_rank_then_recency():
    a, b, c, d = _candidate("a", 1), _candidate("b", 5), _candidate("c", 1), _candidate("d", 2)
    ranked = {"text": [a, b, c], "vector": [c, d]}
    hits = rrf_fuse(
        {name: [Ranked(one.pk, one.updated_at.timestamp()) for one in found] for name, found in ranked.items()}
    )
    fused = [(hit.id, hit.score, hit.matched) for hit in hits]
    assert [(pk, matched) for pk, _, matched in fused] == [
        ("c", ("text", "vector")),  # 1/63 + 1/61
        ("a", ("text",)),  # 1/61
        ("d", ("vector",)),  # 1/62, best rank 2, updated 2 minutes ago
        ("b", ("text",)),  # 1/62, best rank 2, updated 5 minutes ago
    ]
    assert [score for _, score, _ in fused] == pytest.approx([1 / 63 + 1 / 61, 1 / 61, 1 / 62, 1 / 62])


# --- filters, limits, visibility -------------------------------------------------------------------


def test_tag_and_category_narrow_the_search(mind):
    remember(mind, "Docker swarm cluster upgraded", tags=["docker"], category="project")
    remember(mind, "Docker desktop licence renewed", tags=["licences"], category="project")
    remember(mind, "Docker talk at the meetup", tags=["docker"], category="note")
    assert contents(search(mind.agent, "docker", tag="Docker", category="project")) == ["Docker swarm cluster upgraded"]
    assert sorted(contents(search(mind.agent, "docker", tag="docker"))) == [
        "Docker swarm cluster upgraded",
        "Docker talk at the meetup",
    ]


def test_limit_cuts_the_results(mind):
    for n in range(5):
        remember(mind, f"meeting notes number {n}")
    response = search(mind.agent, "meeting", limit="3")
    assert response.json()["count"] == 3
    assert len(response.json()["results"]) == 3
    assert len(search(mind.agent, "meeting").json()["results"]) == 5


def test_expired_memories_are_left_out(mind):
    current = remember(mind, "Parking permit valid")
    expired = remember(mind, "Parking permit for last year")
    Memory.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert [r["id"] for r in search(mind.agent, "parking permit").json()["results"]] == [current.pk]


def test_a_search_never_sees_another_minds_memories(mind, other_mind):
    remember(other_mind, "Insolvenz der Firma Müller angemeldet")
    mine = remember(mind, "Insolvenz abgewendet")
    assert [r["id"] for r in search(mind.agent, "insolvenz").json()["results"]] == [mine.pk]


def test_a_reader_may_search_and_an_outsider_gets_404(mind, reader, outsider):
    remember(mind, "Office is in Berlin")
    assert contents(search(reader.client, "berlin", mind=mind.mind.pk)) == ["Office is in Berlin"]
    response = search(outsider.client, "berlin", mind=mind.mind.pk)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_human_must_name_the_mind(owner):
    response = search(owner.client, "berlin")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["mind"]


def test_each_result_is_the_memory_object_plus_score_and_matched(mind):
    memory = remember(mind, "Office is in Berlin", tags=["work"])
    [result] = search(mind.agent, "berlin").json()["results"]
    assert result["id"] == memory.pk
    assert result["tags"] == ["work"]
    assert result["mind_id"] == mind.mind.pk
    assert set(result) >= {"category", "key", "priority", "verified", "created_at", "expired", "score", "matched"}


def test_a_search_runs_the_same_number_of_queries_for_one_or_thirty_results(mind):
    remember(mind, "garden tomatoes")
    search(mind.agent, "warm-up")  # the first call of a key also stamps last_used_at and opens its throttle row
    with CaptureQueriesContext(connection) as one:
        assert len(search(mind.agent, "garden").json()["results"]) == 1
    for n in range(29):
        remember(mind, f"garden bed number {n}", tags=[f"bed{n}"])
    with CaptureQueriesContext(connection) as thirty:
        assert len(search(mind.agent, "garden", limit="30").json()["results"]) == 30
    assert len(thirty.captured_queries) == len(one.captured_queries)


def test_an_unavailable_embedding_server_answers_503(mind, fake_server):
    remember(mind, "Office is in Berlin")
    fake_server.reply = lambda body: (500, b"out of memory")
    with override_settings(SYNAPSE_EMBEDDER="openai", SYNAPSE_OPENAI_URL=fake_server.url):
        response = search(mind.agent, "berlin")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "embedder_unavailable"


# --- validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({}, "q", "Give the text to search for: ?q=<text>."),
        ({"q": ""}, "q", "q is empty; give the text to search for."),
        ({"q": "  \t "}, "q", "q is empty; give the text to search for."),
        ({"q": "a" * 5001}, "q", "q is at most 5,000 characters; shorten the query."),
        ({"q": "ab\x00c"}, "q", "q must not contain NUL characters (\\u0000); remove them."),
        ({"q": "x", "limit": "0"}, "limit", "Use a whole number from 1 to 1000."),
        ({"q": "x", "limit": "1001"}, "limit", "Use a whole number from 1 to 1000."),
        ({"q": "x", "limit": "ten"}, "limit", "Use a whole number from 1 to 1000."),
        ({"q": "x", "category": "recipes"}, "category", '"recipes" is not allowed. Use one of: identity, '),
        ({"q": "x", "tag": "t" * 65}, "tag", "A tag is at most 64 characters."),
        (
            {"q": "x", "tags": "docker"},
            "tags",
            "Unknown parameter. This endpoint takes: q, limit, tag, category, mind.",
        ),
    ],
)
def test_bad_parameters_answer_400_naming_the_parameter(mind, params, field, message):
    response = mind.agent.get("/memory/search", params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert list(error["fields"]) == [field]
    assert error["fields"][field][0].startswith(message)


def test_a_query_of_exactly_5000_characters_is_accepted(mind):
    remember(mind, "Office is in Berlin")
    response = search(mind.agent, ("berlin " * 715)[:5000])
    assert response.status_code == 200
    assert response.json()["results"][0]["content"] == "Office is in Berlin"


# Raw query strings: what a client may put after `q=` (percent-encoded bytes, not always UTF-8).
_SPECIALS = [
    "'; DROP TABLE memories_memory; --",
    '" OR 1=1 --',
    "-",
    "--",
    "OR",
    '"',
    '"""',
    "a & b | !c <-> d:* (e)",
    "1 OR 2 AND NOT 3",
    "🙂🎉 deploy 🚀",
    "שלום עולם",
    "مرحبا بالعالم",
    "e\u0301\u0301\u0301 combining",
    "\u202ereversed\u202c",
    "x" * 3000,
    "word " * 1000,
]


def _expected_status(q: str) -> int:
    """What the contract says: NUL, blank or over 5,000 characters (after trimming) → 400, else 200."""
    if "\x00" in q:
        return 400
    stripped = q.strip()
    return 400 if not stripped or len(stripped) > 5000 else 200


@pytest.fixture
def searchable(mind):
    remember(mind, "Insolvenz der Firma Müller angemeldet", tags=["work"])
    remember(mind, "We deployed release 1.4 🚀")
    remember(mind, "שלום means peace")
    return mind


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=st.one_of(st.text(st.characters(exclude_categories=["Cs"]), max_size=300), st.sampled_from(_SPECIALS)))
@example(q="\x00")
@example(q="a" * 5000)
@example(q="a" * 5001)
def test_search_never_answers_a_server_error_for_any_text(searchable, q):
    response = searchable.agent.get("/memory/search", {"q": q})
    assert response.status_code == _expected_status(q)
    if response.status_code == 400:
        assert list(response.json()["error"]["fields"]) == ["q"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=200))
@example(raw=b"\xff\xfe invalid utf-8")
@example(raw=b"%00")
def test_search_never_answers_a_server_error_for_any_bytes(searchable, raw):
    response = searchable.agent.get("/memory/search?q=" + quote_from_bytes(raw, safe=""))
    # Django decodes the query string as UTF-8, replacing what is not.
    q = unquote_to_bytes(quote_from_bytes(raw, safe="")).decode("utf-8", "replace")
    assert response.status_code == _expected_status(q)


# --- semantic search ---------------------------------------------------------------------------------


def semantic(client, q: str, **params):
    return client.get("/memory/semantic-search", {"q": q, **params})


def test_semantic_search_returns_similarity_and_honours_the_threshold(mind):
    remember(mind, "deployed")
    remember(mind, "banana")
    response = semantic(mind.agent, "deploy")
    assert response.status_code == 200
    body = response.json()
    assert (body["query"], body["limit"], body["threshold"], body["count"]) == ("deploy", 10, 0.3, 1)
    [result] = body["results"]
    assert result["content"] == "deployed"
    # Hashing embedder by hand: 5 shared trigrams × 0.25 / (√2.5 · √3) (see test_embedders).
    assert result["similarity"] == pytest.approx(1.25 / 7.5**0.5, abs=1e-5)
    assert semantic(mind.agent, "deploy", threshold="0.5").json()["results"] == []


def test_semantic_search_orders_by_similarity_and_cuts_at_limit(mind):
    remember(mind, "garden")
    remember(mind, "garden party")
    remember(mind, "garden party in the park tomorrow")
    body = semantic(mind.agent, "garden", threshold="0", limit="2").json()
    assert [r["content"] for r in body["results"]] == ["garden", "garden party"]
    assert body["results"][0]["similarity"] == pytest.approx(1.0, abs=1e-5)
    assert body["results"][0]["similarity"] > body["results"][1]["similarity"]


def test_semantic_search_leaves_out_expired_memories_and_other_minds(mind, other_mind):
    expired = remember(mind, "garden")
    Memory.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    remember(other_mind, "garden")
    assert semantic(mind.agent, "garden", threshold="0").json()["results"] == []


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"q": "x", "threshold": "1.5"}, "threshold", "Use a number from 0 to 1."),
        ({"q": "x", "threshold": "-0.1"}, "threshold", "Use a number from 0 to 1."),
        ({"q": "x", "threshold": "nan"}, "threshold", "Use a number from 0 to 1."),
        ({"q": "x", "threshold": "high"}, "threshold", "Use a number from 0 to 1."),
        ({"q": "x", "limit": "0"}, "limit", "Use a whole number from 1 to 1000."),
        ({"q": ""}, "q", "q is empty; give the text to search for."),
        ({"q": "x", "tag": "docker"}, "tag", "Unknown parameter. This endpoint takes: q, limit, threshold, mind."),
    ],
)
def test_semantic_search_answers_400_for_bad_parameters(mind, params, field, message):
    response = mind.agent.get("/memory/semantic-search", params)
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {field: [message]}


def test_semantic_search_runs_the_same_number_of_queries_for_one_or_ten_results(mind):
    remember(mind, "garden")
    semantic(mind.agent, "warm-up")  # the first call of a key also stamps last_used_at and opens its throttle row
    with CaptureQueriesContext(connection) as one:
        assert len(semantic(mind.agent, "garden").json()["results"]) == 1
    for n in range(9):
        remember(mind, f"garden {n}")
    with CaptureQueriesContext(connection) as ten:
        assert len(semantic(mind.agent, "garden").json()["results"]) == 10
    assert len(ten.captured_queries) == len(one.captured_queries)
