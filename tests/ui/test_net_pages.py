"""The net's pages with the test client: the picture's page and data, the entities (rename,
aliases, merge), recall with its resonance explained, the memory page's knots, and the admin.

The nets are written by hand (tests/nets.py, tests/factories.py): promotion and edge formation,
which make them in the product, are tested elsewhere.
"""

from __future__ import annotations

import html

import pytest
from django.contrib.auth import get_user_model

from memories.embedders import get_embedder
from memories.models import Memory
from synapses.models import Edge, Entity, Knot, KnotPresence
from tests.factories import knot_make, memory_make
from tests.nets import QUERY, net_build
from tests.pages import assert_page_keeps_to_its_policy
from tests.ui.conftest import logged_in
from tests.vectors import at_cosine_to_query

pytestmark = pytest.mark.django_db


@pytest.fixture
def net(mind) -> dict:
    return net_build(mind)


# --- the picture ----------------------------------------------------------------------------------


def test_the_net_page_loads_the_vendored_library_and_its_script_and_keeps_to_the_policy(owner, net):
    mind = net["mind"].mind
    response = logged_in(owner).get(f"/app/minds/{mind.pk}/net/")
    body = response.content.decode()
    assert response.status_code == 200
    assert '<script src="/static/vendor/cytoscape-3.35.0/cytoscape.min.js" defer>' in body
    assert '<script src="/static/ui/net.js" defer>' in body
    assert f'data-url="/app/minds/{mind.pk}/net/data/"' in body
    assert_page_keeps_to_its_policy(response)


def test_without_javascript_the_net_page_says_so_and_links_what_works_without_it(owner, net):
    mind = net["mind"].mind
    body = logged_in(owner).get(f"/app/minds/{mind.pk}/net/").content.decode()
    noscript = body.split("<noscript>")[1].split("</noscript>")[0]
    assert "needs JavaScript" in noscript
    for path in (f"/app/minds/{mind.pk}/", f"/app/minds/{mind.pk}/entities/", f"/app/minds/{mind.pk}/recall/"):
        assert f'href="{path}"' in noscript
    assert f"/app/minds/{mind.pk}/net/data/" in noscript


def test_the_data_has_every_active_knot_sized_by_presence_and_one_edge_per_pair_with_its_layers(reader, net):
    mind, knots = net["mind"].mind, net["knots"]
    body = logged_in(reader).get(f"/app/minds/{mind.pk}/net/data/").json()
    assert [node["key"] for node in body["nodes"]] == ["mem_d", "mem_a", "mem_b", "mem_c"]  # most present first
    by_key = {node["key"]: node for node in body["nodes"]}
    assert by_key["mem_d"]["weight_present"] == 9.0 and by_key["mem_d"]["category"] == "preference"
    assert by_key["mem_a"]["entities"] == ["Anna"] and by_key["mem_a"]["themes"] == ["family"]
    assert by_key["mem_a"]["memory_url"] == f"/app/memories/{knots['a'].memory_id}/"
    pairs = {(min(e["source"], e["target"]), max(e["source"], e["target"])): e for e in body["edges"]}
    assert len(body["edges"]) == 2 == len(pairs)
    a_d = pairs[tuple(sorted((knots["a"].pk, knots["d"].pk)))]
    assert (a_d["weight"], a_d["layers"]) == (5.0, ["embedding", "timeline"])  # the stronger direction
    a_b = pairs[tuple(sorted((knots["a"].pk, knots["b"].pk)))]
    assert (a_b["shared_entities"], a_b["shared_themes"]) == (["Anna"], ["family"])
    assert body["truncated"] is False


def test_the_data_leaves_out_faded_knots_and_filters_by_category_theme_and_entity(owner, net):
    mind, knots = net["mind"].mind, net["knots"]
    KnotPresence.objects.filter(knot=knots["c"]).update(is_active=False)
    client = logged_in(owner)
    url = f"/app/minds/{mind.pk}/net/data/"

    def keys(**query):
        return [node["key"] for node in client.get(url, query).json()["nodes"]]

    assert keys() == ["mem_d", "mem_a", "mem_b"]
    assert keys(category="fact") == ["mem_a", "mem_b"]
    assert keys(theme="Travel") == ["mem_d"]  # themes are tags: any case
    assert keys(entity=net["anna"].pk) == ["mem_a", "mem_b"]
    assert keys(entity=net["schmidt"].pk) == []  # its only knot has faded
    only_two = client.get(url, {"max_nodes": 2}).json()
    assert ([n["key"] for n in only_two["nodes"]], only_two["truncated"], len(only_two["edges"])) == (
        ["mem_d", "mem_a"], True, 1,
    )  # fmt: skip


def test_the_data_reads_the_net_in_three_statements_whatever_its_size(owner, net):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    mind = net["mind"].mind
    client = logged_in(owner)
    url = f"/app/minds/{mind.pk}/net/data/"
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        counts.append(
            [query["sql"].split('"')[1] for query in queries.captured_queries if '"synapses_' in query["sql"]]
        )
        more = memory_make(mind=mind, content=f"one more knot {len(counts)}", salience=0.7)
        knot_make(
            memory=more,
            embedding=at_cosine_to_query(QUERY, 0.3, axis=40 + len(counts)),
            presence=0.5,
            entities=[net["anna"].pk],
            embedding_model=get_embedder().name,
            linked=True,
        )
    # knots, edges, entity names (besides them: the session, the user, the mind and the request's log rows)
    assert counts == [["synapses_knot", "synapses_edge", "synapses_entity"]] * 2


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"max_nodes": "0"}, "max_nodes"),
        ({"max_nodes": "1001"}, "max_nodes"),
        ({"entity": "anna"}, "entity"),
        ({"entity": "99999999999999999999999"}, "entity"),
        ({"category": "gossip"}, "category"),
        ({"theme": "x" * 65}, "theme"),
    ],
)
def test_bad_filters_answer_400_json_naming_the_field(owner, net, query, field):
    mind = net["mind"].mind
    response = logged_in(owner).get(f"/app/minds/{mind.pk}/net/data/", query)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert list(response.json()["fields"]) == [field]
    page = logged_in(owner).get(f"/app/minds/{mind.pk}/net/", query)
    assert page.status_code == 400 and "field-error" in page.content.decode()


def test_the_data_refuses_in_json_without_a_session_outside_the_mind_and_for_a_post(api, outsider, net):
    url = f"/app/minds/{net['mind'].mind.pk}/net/data/"
    anonymous = api.get(url)
    assert (anonymous.status_code, anonymous["Content-Type"]) == (401, "application/json")
    assert logged_in(outsider).get(url).status_code == 404
    assert logged_in(outsider).get(url).json()["detail"]
    assert logged_in(outsider).get("/app/minds/m_nosuchmind/net/data/").status_code == 404
    posted = logged_in(outsider).post(url)
    assert posted.status_code == 405 and "GET" in posted.json()["detail"]


# --- entities -------------------------------------------------------------------------------------


def test_the_entities_page_lists_names_aliases_and_knot_counts(reader, net):
    mind = net["mind"].mind
    response = logged_in(reader).get(f"/app/minds/{mind.pk}/entities/")
    assert response.status_code == 200
    rows = [(e.name, e.aliases, e.knot_count) for e in response.context["entities"]]
    assert rows == [("Anna", ["Annie"], 2), ("Schmidt", [], 1)]
    assert_page_keeps_to_its_policy(response)


def test_a_read_share_sees_no_merge_rename_or_create_and_is_refused_when_it_posts(reader, net):
    mind, anna, schmidt = net["mind"].mind, net["anna"], net["schmidt"]
    client = logged_in(reader)
    body = client.get(f"/app/minds/{mind.pk}/entities/").content.decode()
    assert "Merge two entities" not in body and ">Save<" not in body and "New entity" not in body
    base = f"/app/minds/{mind.pk}/entities"
    assert client.post(f"{base}/merge/", {"entity": schmidt.pk, "into": anna.pk}).status_code == 403
    assert client.post(f"{base}/{anna.pk}/", {"name": "Hanna", "aliases": ""}).status_code == 403
    assert client.post(f"{base}/", {"name": "Berlin"}).status_code == 403
    assert sorted(Entity.objects.filter(mind=mind).values_list("name", "aliases")) == [
        ("Anna", ["Annie"]), ("Schmidt", []),
    ]  # fmt: skip


def test_a_writer_renames_and_sets_aliases_and_knots_naming_a_new_alias_gain_the_entity(writer, net):
    mind, schmidt, knots = net["mind"].mind, net["schmidt"], net["knots"]
    Knot.objects.filter(pk=knots["d"].pk).update(content="a trip with Herr Schmidt to Rome")
    client = logged_in(writer)
    response = client.post(
        f"/app/minds/{mind.pk}/entities/{schmidt.pk}/", {"name": " Max  Schmidt ", "aliases": "Schmidt, Herr Schmidt"}
    )
    assert response.status_code == 302
    schmidt.refresh_from_db()
    assert (schmidt.name, schmidt.aliases) == ("Max Schmidt", ["Schmidt", "Herr Schmidt"])
    assert schmidt.pk in Knot.objects.get(pk=knots["d"].pk).entities
    message = [str(m) for m in client.get(response["Location"]).context["messages"]]
    # d joins c, which carries Schmidt too (a pair: two rows created); d's pair with a, written by
    # hand with no frozen cosine or time distance, has no layer left when evaluated again (two
    # rows deleted).
    assert message == ["Entity Max Schmidt saved. 1 knot changed; edges: 2 created, 0 updated, 2 deleted."]
    assert Edge.objects.filter(source=knots["d"], target=knots["c"]).exists()
    assert not Edge.objects.filter(source=knots["d"], target=knots["a"]).exists()


def test_a_name_another_entity_holds_is_refused_under_the_form_and_nothing_changes(writer, net):
    mind, schmidt = net["mind"].mind, net["schmidt"]
    response = logged_in(writer).post(
        f"/app/minds/{mind.pk}/entities/{schmidt.pk}/", {"name": "Schmidt", "aliases": "annie"}
    )
    assert response.status_code == 400
    assert '"annie" is already a name or alias of the entity "Anna"' in html.unescape(response.content.decode())
    schmidt.refresh_from_db()
    assert schmidt.aliases == []


def test_a_merge_folds_the_entity_into_the_other_and_its_knots_and_edges_carry_the_kept_one(owner, net):
    mind, anna, schmidt, knots = net["mind"].mind, net["anna"], net["schmidt"], net["knots"]
    client = logged_in(owner)
    response = client.post(f"/app/minds/{mind.pk}/entities/merge/", {"entity": anna.pk, "into": schmidt.pk})
    assert response.status_code == 302
    assert not Entity.objects.filter(pk=anna.pk).exists()
    schmidt.refresh_from_db()
    assert schmidt.aliases == ["Anna", "Annie"]
    assert {name: Knot.objects.get(pk=k.pk).entities for name, k in knots.items()} == {
        "a": [schmidt.pk], "b": [schmidt.pk], "c": [schmidt.pk], "d": [],
    }  # fmt: skip
    # The edge pair that shared Anna now shares the kept entity (Trigger 3 evaluated it again).
    shared = Edge.objects.filter(source=knots["a"], target=knots["b"]).values_list("shared_entities", flat=True)
    assert list(shared) == [[schmidt.pk]]
    messages = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert messages[0].startswith("Entity Anna merged into Schmidt: 2 knots now carry Schmidt")


@pytest.mark.parametrize(
    ("form", "field", "text"),
    [
        ({"entity": "{anna}", "into": "{anna}"}, "into", "cannot be merged into itself"),
        ({"entity": "{anna}", "into": "999999"}, "into", "No entity 999999 in this mind."),
        ({"entity": "{anna}", "into": "Schmidt"}, "into", "Enter a whole number."),
        ({"entity": "", "into": "{anna}"}, "entity", "This field is required."),
    ],
)
def test_a_bad_merge_is_refused_under_the_field_it_names_and_nothing_changes(owner, net, form, field, text):
    mind, anna = net["mind"].mind, net["anna"]
    data = {name: value.format(anna=anna.pk) for name, value in form.items()}
    response = logged_in(owner).post(f"/app/minds/{mind.pk}/entities/merge/", data)
    assert response.status_code == 400
    assert text in " ".join(response.context["merge_form"].errors[field])
    assert Entity.objects.filter(mind=mind).count() == 2


def test_an_entity_of_another_mind_cannot_be_merged_or_renamed_from_this_one(owner, net, other_mind):
    mind, anna = net["mind"].mind, net["anna"]
    stranger = Entity.objects.create(mind=other_mind.mind, name="Stranger")
    client = logged_in(owner)
    merged = client.post(f"/app/minds/{mind.pk}/entities/merge/", {"entity": stranger.pk, "into": anna.pk})
    assert merged.status_code == 400 and f"No entity {stranger.pk} in this mind." in html.unescape(
        merged.content.decode()
    )
    assert client.post(f"/app/minds/{mind.pk}/entities/{stranger.pk}/", {"name": "Mine"}).status_code == 404
    assert Entity.objects.get(pk=stranger.pk).name == "Stranger"


def test_a_writer_creates_an_entity_and_the_knots_naming_it_gain_it(writer, net):
    mind, knots = net["mind"].mind, net["knots"]
    Knot.objects.filter(pk=knots["c"].pk).update(content="the office in Berlin")
    response = logged_in(writer).post(f"/app/minds/{mind.pk}/entities/", {"name": "Berlin", "aliases": ""})
    assert response.status_code == 302
    berlin = Entity.objects.get(mind=mind, name="Berlin")
    assert berlin.pk in Knot.objects.get(pk=knots["c"].pk).entities


def test_entity_posts_without_a_csrf_token_are_refused(owner, net):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(owner.user)
    mind, anna, schmidt = net["mind"].mind, net["anna"], net["schmidt"]
    assert (
        client.post(f"/app/minds/{mind.pk}/entities/merge/", {"entity": anna.pk, "into": schmidt.pk}).status_code == 403
    )
    assert Entity.objects.filter(pk=anna.pk).exists()


# --- recall explained -----------------------------------------------------------------------------


def test_recall_shows_the_agent_s_text_and_explains_each_resonance_path(reader, net, settings):
    settings.SYNAPSE_RESONANCE_RANKING = "seed"  # the ranking this net's numbers were worked out for
    mind, knots = net["mind"].mind, net["knots"]
    response = logged_in(reader).get(f"/app/minds/{mind.pk}/recall/", {"q": QUERY})
    assert response.status_code == 200
    assert 'Resonance for: "where does anna live"' in response.context["text"]
    items = response.context["items"]
    # d is far from the query but very present: reached from anchor a over their edge, it ranks first.
    first = items[0]
    assert (first["knot_id"], first["anchor"], first["shell"]) == (knots["d"].pk, False, 1)
    assert first["shell_factor"] == 0.75 and first["mood_factor"] == 1.0
    assert first["rank_weight"] == pytest.approx(9.0 * 0.75)
    step = first["steps"][0]
    assert (step["from_knot_id"], step["layers"], step["phrase"]) == (
        knots["a"].pk, ["embedding", "timeline"], "similar content, close in time",
    )  # fmt: skip
    assert step["from_content"] == "memory a about things"
    assert all(item["anchor"] for item in items[1:])
    body = response.content.decode()
    assert "9.0000</code> presence × <code>0.75</code> shell 1" in body
    assert_page_keeps_to_its_policy(response)


def test_recall_under_the_relevance_ranking_explains_the_rank_as_relevance_not_presence(reader, net, settings):
    settings.SYNAPSE_RESONANCE_RANKING = "relevance"
    response = logged_in(reader).get(f"/app/minds/{net['mind'].mind.pk}/recall/", {"q": QUERY})
    assert response.status_code == 200
    body = response.content.decode()
    assert "its relevance to the query" in body and "(ranking <code>relevance</code>)" in body
    assert "presence × <code>" not in body  # the seed's formula would not give these rank weights


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"q": QUERY, "mood": "grumpy-ish"}, "mood"),
        ({"q": QUERY, "mode": "nosuchmode"}, "mode"),
        ({"q": "x" * 1001}, "q"),
    ],
)
def test_recall_with_a_bad_option_answers_400_with_the_message_under_its_field(owner, net, query, field):
    response = logged_in(owner).get(f"/app/minds/{net['mind'].mind.pk}/recall/", query)
    assert response.status_code == 400
    assert response.context["form"].errors[field]


def test_recall_without_a_query_shows_a_form_and_for_an_outsider_is_not_found(owner, outsider, net):
    url = f"/app/minds/{net['mind'].mind.pk}/recall/"
    response = logged_in(owner).get(url)
    assert response.status_code == 200 and response.context["items"] == []
    assert logged_in(outsider).get(url, {"q": QUERY}).status_code == 404


# --- the memory page ------------------------------------------------------------------------------


def test_the_memory_page_shows_its_knots_current_and_superseded_with_edges_layers_and_net_related(reader, net):
    knots = net["knots"]
    memory = Memory.objects.get(pk=knots["a"].memory_id)
    older = knot_make(
        memory=memory,
        embedding=at_cosine_to_query(QUERY, 0.5, axis=30),
        presence=0.2,
        content="an older a",
        embedding_model=get_embedder().name,
        linked=True,
    )
    Knot.objects.filter(pk=older.pk).update(created_at=knots["a"].created_at.replace(year=2025))
    response = logged_in(reader).get(f"/app/memories/{memory.pk}/")
    assert response.status_code == 200
    (section,) = response.context["sections"]
    rows = section.context["net"].knots
    assert [(row.knot.pk, row.current) for row in rows] == [(knots["a"].pk, True), (older.pk, False)]
    assert [(item.other.pk, item.edge.layers) for item in rows[0].edges] == [
        (knots["d"].pk, ["embedding", "timeline"]), (knots["b"].pk, ["entity", "themes"]),
    ]  # fmt: skip
    assert rows[0].entities == ["Anna"] and rows[0].edges[1].shared_entities == ["Anna"]
    assert [m.key for m in section.context["net"].related] == ["mem_d", "mem_b"]
    body = response.content.decode()
    assert 'id="knots"' in body and "superseded: an earlier version" in body and "an older a" in body


def test_a_memory_not_promoted_yet_says_so_on_its_page(owner, mind):
    memory = memory_make(mind=mind.mind, content="fresh and unpromoted", key="fresh", salience=0.7)
    body = logged_in(owner).get(f"/app/memories/{memory.pk}/").content.decode()
    assert "Not in the long-term net yet" in body


# --- the admin ------------------------------------------------------------------------------------


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_superuser(
        username="root@example.com", email="root@example.com", password="x"
    )


def _admin(staff):
    from django.test import Client

    client = Client()
    client.force_login(staff)
    return client


def test_the_admin_deactivates_selected_knots(staff, net):
    knots = net["knots"]
    client = _admin(staff)
    response = client.post(
        "/admin/synapses/knot/",
        {"action": "deactivate_selected", "_selected_action": [knots["a"].pk, knots["b"].pk]},
        follow=True,
    )
    assert response.status_code == 200
    active = dict(KnotPresence.objects.filter(knot__in=knots.values()).values_list("knot__memory__key", "is_active"))
    assert active == {"mem_a": False, "mem_b": False, "mem_c": True, "mem_d": True}
    assert "2 knots deactivated" in response.content.decode()


def test_the_admin_merges_selected_entities_into_the_oldest_one(staff, net):
    anna, schmidt, knots = net["anna"], net["schmidt"], net["knots"]
    response = _admin(staff).post(
        "/admin/synapses/entity/", {"action": "merge_selected", "_selected_action": [anna.pk, schmidt.pk]}, follow=True
    )
    assert response.status_code == 200
    assert list(Entity.objects.filter(mind=net["mind"].mind).values_list("name", "aliases")) == [
        ("Anna", ["Annie", "Schmidt"])
    ]
    assert Knot.objects.get(pk=knots["c"].pk).entities == [anna.pk]


def test_the_admin_refuses_to_merge_entities_of_two_minds_or_a_single_one(staff, net, other_mind):
    stranger = Entity.objects.create(mind=other_mind.mind, name="Stranger")
    client = _admin(staff)
    for selected in ([net["anna"].pk, stranger.pk], [net["anna"].pk]):
        body = client.post(
            "/admin/synapses/entity/", {"action": "merge_selected", "_selected_action": selected}, follow=True
        ).content.decode()
        assert "Select two or more entities of one mind" in body
    assert Entity.objects.count() == 3


@pytest.mark.parametrize(
    "path",
    [
        "/admin/synapses/knot/?category__exact=fact&q=things",
        "/admin/synapses/knot/?presence__is_active__exact=1",
        "/admin/synapses/edge/?layers=entity",
        "/admin/synapses/edge/?q=1",
        "/admin/synapses/entity/?q=ann",
        "/admin/synapses/goal/?active__exact=1",
        "/admin/memories/memory/?verified__exact=0",
        "/admin/pipelinelog/logentry/?kind__exact=input",
        "/admin/django_q/schedule/",
        "/admin/django_q/failure/",
        "/admin/django_q/success/",
        "/admin/django_q/ormq/",
    ],
)
def test_the_admin_lists_of_the_net_memories_log_and_tasks_open_with_their_filters(staff, net, path):
    assert _admin(staff).get(path).status_code == 200
