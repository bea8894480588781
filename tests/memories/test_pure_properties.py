"""Properties of the pure algorithms (memories.keys, fusion, clustering, recall): each
holds for every input hypothesis generates, plus a few exact examples worked out by hand."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memories.clustering import clusters_by_tag, summary_content
from memories.fusion import RRF_K, Ranked, rrf_fuse
from memories.keys import derived_key, is_derived_key, key_stem
from memories.limits import MAX_KEY_CHARS
from memories.models import Category
from memories.recall import RecallCounts, RecallEntry, header_of, omission_line, recall_render

# Speed is measured in bench/, not asserted here: no per-example deadline on a busy machine.
untimed = settings(deadline=None)

# --- keys ----------------------------------------------------------------------------------------

categories = st.sampled_from(Category.values)


@untimed
@given(category=categories, content=st.text())
def test_a_derived_key_is_recognised_as_derived_and_names_no_subject(category, content):
    key = derived_key(category, content)
    assert is_derived_key(key, category)
    assert key_stem(key, category) is None


@untimed
@given(category=categories, content=st.text())
def test_a_derived_key_depends_only_on_category_and_content_and_fits_the_key_limit(category, content):
    assert derived_key(category, content) == derived_key(category, str(content))
    assert len(derived_key(category, content)) <= MAX_KEY_CHARS


@untimed
@given(category=categories, content=st.text(), other=categories)
def test_a_derived_key_of_one_category_is_not_derived_for_another(category, content, other):
    if other != category and not other.startswith(f"{category}_") and not category.startswith(f"{other}_"):
        assert not is_derived_key(derived_key(category, content), other)


def test_a_derived_key_is_the_category_and_the_first_twelve_hex_digits_of_the_sha256():
    # sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    assert derived_key("fact", "abc") == "fact_ba7816bf8f01"


@untimed
@given(key=st.text(min_size=1), category=categories)
def test_a_key_stem_is_lower_case_and_never_longer_than_the_key(key, category):
    stem = key_stem(key, category)
    if stem is not None:
        assert stem == stem.lower()
        assert 0 < len(stem) <= len(key.lower())


@pytest.mark.parametrize(
    ("key", "stem"),
    [("User_City_v2", "user_city"), ("deploy.v1.2", "deploy"), ("plan:2026", "plan"), ("_2", "_2"), ("city", "city")],
)
def test_key_stems_of_hand_picked_keys(key, stem):
    assert key_stem(key, "fact") == stem


# --- reciprocal rank fusion ----------------------------------------------------------------------

ids = st.sampled_from([f"m{i}" for i in range(12)])
ranked_list = st.lists(st.tuples(ids, st.integers(0, 5)), unique_by=lambda pair: pair[0], max_size=8).map(
    lambda pairs: [Ranked(id_, float(recency)) for id_, recency in pairs]
)


def _consistent(lists: list[list[Ranked]]) -> list[list[Ranked]]:
    """One recency per id across the lists, as the two halves of a search see one row."""
    recency = {}
    for entries in lists:
        for entry in entries:
            recency.setdefault(entry.id, entry.recency)
    return [[Ranked(entry.id, recency[entry.id]) for entry in entries] for entries in lists]


@untimed
@given(lists=st.lists(ranked_list, min_size=1, max_size=4), seed=st.integers())
def test_fusion_does_not_depend_on_the_order_of_the_lists(lists, seed):
    lists = _consistent(lists)
    names = [f"list{index}" for index in range(len(lists))]
    shuffled = list(zip(names, lists, strict=True))
    random.Random(seed).shuffle(shuffled)
    forward = rrf_fuse(dict(zip(names, lists, strict=True)))
    backward = rrf_fuse(dict(shuffled))
    assert [(hit.id, hit.score, set(hit.matched)) for hit in forward] == [
        (hit.id, hit.score, set(hit.matched)) for hit in backward
    ]


@untimed
@given(lists=st.lists(ranked_list, min_size=1, max_size=4))
def test_fused_scores_are_the_sum_of_reciprocal_ranks_and_come_best_first(lists):
    lists = _consistent(lists)
    fused = rrf_fuse({f"list{index}": entries for index, entries in enumerate(lists)})
    for hit in fused:
        ranks = [
            [entry.id for entry in entries].index(hit.id) + 1 for entries in lists if hit.id in {e.id for e in entries}
        ]
        assert hit.score == pytest.approx(sum(1 / (RRF_K + rank) for rank in ranks))
        assert len(hit.matched) == len(ranks)
    assert [hit.score for hit in fused] == sorted((hit.score for hit in fused), reverse=True)
    assert {hit.id for hit in fused} == {entry.id for entries in lists for entry in entries}


@untimed
@given(rank_a=st.integers(1, 500), rank_b=st.integers(1, 500))
def test_a_hit_found_by_both_lists_outranks_a_hit_at_the_same_rank_in_one(rank_a, rank_b):
    # "both" is at rank_a of one list and rank_b of the other; "one" is at the better of the two
    # ranks in one list only, so it also wins every tie-break that follows the score.
    filler = [Ranked(f"f{i}", 0.0) for i in range(max(rank_a, rank_b))]
    text = filler[: rank_a - 1] + [Ranked("both", 0.0)]
    vector = filler[: rank_b - 1] + [Ranked("both", 0.0)]
    best = min(rank_a, rank_b)
    lonely = [Ranked(f"g{i}", 0.0) for i in range(best - 1)] + [Ranked("one", 1.0)]
    fused = [hit.id for hit in rrf_fuse({"text": text, "vector": vector, "other": lonely})]
    assert fused.index("both") < fused.index("one")


def test_fusion_of_two_hand_made_lists():
    fused = rrf_fuse(
        {"text": [Ranked("a", 3), Ranked("b", 1), Ranked("c", 3)], "vector": [Ranked("c", 3), Ranked("d", 2)]}
    )
    assert [(hit.id, hit.matched) for hit in fused] == [
        ("c", ("text", "vector")),  # 1/63 + 1/61
        ("a", ("text",)),  # 1/61
        ("d", ("vector",)),  # 1/62, best rank 2, more recent than b
        ("b", ("text",)),  # 1/62
    ]
    assert [hit.score for hit in fused] == pytest.approx([1 / 63 + 1 / 61, 1 / 61, 1 / 62, 1 / 62])


# --- compaction clustering -----------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    pk: str
    tags: list[str]
    content: str


items = st.lists(
    st.tuples(st.lists(st.sampled_from("wxyz"), max_size=3, unique=True), st.text("ab\n", max_size=12)), max_size=15
).map(lambda rows: [Item(f"i{index}", tags, content) for index, (tags, content) in enumerate(rows)])


@untimed
@given(
    items=items,
    max_clusters=st.integers(1, 5),
    min_cluster_size=st.integers(1, 4),
    max_members=st.integers(1, 6),
    max_chars=st.integers(1, 80),
)
def test_clusters_keep_every_promise_of_the_docstring(items, max_clusters, min_cluster_size, max_members, max_chars):
    groups = clusters_by_tag(
        items,
        max_clusters=max_clusters,
        min_cluster_size=min_cluster_size,
        max_members=max_members,
        max_chars=max_chars,
    )
    assert len(groups) <= max_clusters
    taken = [member.pk for members, _ in groups for member in members]
    assert len(taken) == len(set(taken))  # an item joins at most one group
    order = [item.pk for item in items]
    for members, shared in groups:
        assert min_cluster_size <= len(members) <= max_members
        assert len(summary_content([member.content for member in members])) <= max_chars
        assert [member.pk for member in members] == sorted((m.pk for m in members), key=order.index)  # given order
        assert shared  # the seed tag at least
        assert shared == [tag for tag in members[0].tags if all(tag in member.tags for member in members)]


def test_the_most_carried_tag_seeds_the_first_cluster_and_ties_go_alphabetically():
    rows = [Item("a", ["x", "y"], "c"), Item("b", ["x"], "c"), Item("c", ["x"], "c"), Item("d", ["y"], "c"),
            Item("e", ["y"], "c"), Item("f", ["y", "z"], "c")]  # fmt: skip
    groups = clusters_by_tag(rows, max_clusters=10, min_cluster_size=2, max_members=100, max_chars=1000)
    assert [([m.pk for m in members], shared) for members, shared in groups] == [
        (["a", "d", "e", "f"], ["y"]),
        (["b", "c"], ["x"]),
    ]


# --- recall text ---------------------------------------------------------------------------------

entries = st.lists(
    st.builds(
        RecallEntry,
        category=st.sampled_from(Category.values),
        priority=st.sampled_from(["low", "normal", "high", "critical"]),
        verified=st.booleans(),
        key=st.just(""),  # numbered below, so each entry's key is findable in the text
        content=st.text(max_size=60),
        tags=st.lists(st.text(min_size=1, max_size=8), max_size=3),
    ),
    max_size=12,
).map(lambda rows: [RecallEntry(**{**vars(row), "key": f"key-{index:03d}"}) for index, row in enumerate(rows)])


@untimed
@given(
    entries=entries,
    hidden=st.integers(0, 20),
    limit=st.integers(1, 100),
    max_chars=st.none() | st.integers(1, 3000),
    name=st.text(max_size=30),
)
def test_recall_text_fits_max_chars_keeps_the_order_and_accounts_for_every_memory(
    entries, hidden, limit, max_chars, name
):
    total = len(entries) + hidden
    counts = RecallCounts(total=total, verified=0, unverified=total)
    result = recall_render(mind_name=name, counts=counts, entries=entries, limit=limit, max_chars=max_chars)
    if total:
        assert result.shown + result.omitted == total
    assert result.shown <= len(entries)
    assert result.text.endswith("\n")
    positions = [result.text.find(f"\n  key-{index:03d}\n") for index in range(len(entries))]
    assert all(position > 0 for position in positions[: result.shown])  # the first `shown`, in order
    assert positions[: result.shown] == sorted(positions[: result.shown])
    assert all(position == -1 for position in positions[result.shown :])
    if max_chars is not None:
        # The header is always there; beyond it the text stays within max_chars.
        floor = len(header_of(name, counts)) + len("\n" + omission_line(total, "max_chars", max_chars))
        assert len(result.text) <= max(max_chars, floor)
