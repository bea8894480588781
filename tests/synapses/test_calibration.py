"""The calibration statistics (pure) and `manage.py calibrate` against the real database."""

from __future__ import annotations

import math
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.test.utils import override_settings
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from memories.models import EMBEDDING_DIMENSIONS
from synapses import constants
from synapses.config import synapse_settings
from synapses.net import calibration
from synapses.net.calibration import (
    light_edits,
    pair_cosines,
    percentiles,
    sample_indices,
    share_at_or_above,
    thresholds_suggest,
)
from tests.factories import knot_make
from tests.vectors import at_cosine, axis


def test_every_pair_of_distinct_rows_appears_once_in_row_order():
    vectors = [[1, 0], [0, 3], [1, 1]]  # not unit length: cosines do not care

    assert pair_cosines(vectors) == pytest.approx([0.0, 1 / math.sqrt(2), 1 / math.sqrt(2)])


def test_the_blocked_pair_matrix_equals_the_pairs_computed_one_by_one(monkeypatch):
    monkeypatch.setattr(calibration, "_GRAM_BLOCK_ROWS", 2)
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((7, 5))

    expected = [
        float(vectors[i] @ vectors[j] / (np.linalg.norm(vectors[i]) * np.linalg.norm(vectors[j])))
        for i in range(7)
        for j in range(i + 1, 7)
    ]

    assert pair_cosines(vectors) == pytest.approx(expected)
    assert len(expected) == 21  # every unordered pair of 7 vectors once


def test_a_small_set_is_taken_whole_and_a_large_one_sampled_without_repeats():
    rng = np.random.default_rng(0)
    assert sample_indices(5, max_knots=10, rng=rng).tolist() == [0, 1, 2, 3, 4]
    sample = sample_indices(10_000, max_knots=2_000, rng=rng)
    assert len(sample) == len(set(sample.tolist())) == 2_000
    assert sample.min() >= 0 and sample.max() < 10_000 and (np.diff(sample) > 0).all()


def test_percentiles_interpolate_between_ranks():
    cosines = np.arange(101) / 100

    at = percentiles(cosines, (50, 99, 99.9))

    assert at == {50: pytest.approx(0.5), 99: pytest.approx(0.99), 99.9: pytest.approx(0.999)}


def test_suggestions_sit_at_their_percentiles_rounded_down_to_a_hundredth():
    cosines = np.linspace(0, 1, 100_001)

    suggested = {s.name: (s.percentile, s.value) for s in thresholds_suggest(cosines)}

    assert suggested == {
        "EMBEDDING_THRESHOLD": (99, 0.99),
        "MATCH_THRESHOLD": (99.99, 0.99),
        "USAGE_THRESHOLD": (99, 0.99),
        "ANCHOR_FLOOR": (90, 0.90),
        "GRAVITY_THRESHOLD": (90, 0.90),
    }


def test_the_original_distribution_gives_back_the_original_embedding_threshold():
    # A distribution with the original's p99 of 0.568 (ref: threshold 0.55 from it): 0.568 → 0.56.
    cosines = np.concatenate([np.full(9_800, 0.26), np.full(200, 0.568)])

    (embedding,) = [s for s in thresholds_suggest(cosines) if s.name == "EMBEDDING_THRESHOLD"]

    assert embedding.value == 0.56


def test_with_light_edit_duplicates_the_match_threshold_keeps_99_percent_of_them():
    pairs = np.linspace(0, 1, 10_001)
    duplicates = np.concatenate([np.full(980, 0.95), np.full(20, 0.5)])  # 2 % lie far: p1 falls among them

    suggested = {s.name: (s.percentile, s.value) for s in thresholds_suggest(pairs, duplicates)}

    assert suggested["MATCH_THRESHOLD"] == (99.99, 0.99)  # the duplicates' p1 (0.5) would let half the pairs match
    assert suggested["EMBEDDING_THRESHOLD"] == (99, 0.99)


def test_duplicates_above_the_pairs_tail_set_the_match_threshold_at_their_1st_percentile():
    pairs = np.linspace(0, 0.6, 10_001)
    duplicates = np.concatenate([np.full(980, 0.95), np.full(20, 0.857)])

    (match,) = [s for s in thresholds_suggest(pairs, duplicates) if s.name == "MATCH_THRESHOLD"]

    assert (match.percentile, match.value) == (1, 0.85)


def test_light_edits_lower_case_strip_punctuation_and_drop_the_middle_word():
    assert light_edits("Caroline: I went to the LGBTQ support group!") == [
        "caroline i went to the lgbtq support group",
        "Caroline: I went to LGBTQ support group!",
    ]
    assert light_edits("ok bye") == []  # already bare, too short to drop a word
    assert light_edits("Bye!") == ["bye"]


def test_the_share_at_or_above_counts_ties_in():
    assert share_at_or_above(np.array([0.1, 0.5, 0.5, 0.9]), 0.5) == 0.75


def test_no_pairs_is_an_error_not_a_number():
    with pytest.raises(ValueError, match="at least two knots"):
        percentiles(np.empty(0))


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(2, 400), elements=st.floats(-1, 1)))
def test_suggestions_never_exceed_the_largest_pair_and_keep_their_order(cosines):
    suggested = {s.name: s.value for s in thresholds_suggest(cosines)}

    assert all(value <= cosines.max() + 1e-12 for value in suggested.values())
    assert suggested["MATCH_THRESHOLD"] >= suggested["EMBEDDING_THRESHOLD"] >= suggested["ANCHOR_FLOOR"]


# --- the command -----------------------------------------------------------------------------------


def calibrate(*args: str) -> str:
    out = StringIO()
    call_command("calibrate", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_calibrating_a_mind_compares_every_pair_of_its_knots(the_mind):
    for cosine in (0.1, 0.2, 0.3, 0.4):
        knot_make(mind=the_mind, weight_anchor=1.0, embedding=at_cosine(cosine))
    knot_make(mind=the_mind, weight_anchor=1.0, embedding=axis(0))

    report = calibrate("--mind", the_mind.pk)

    assert "embedding model: test" in report
    assert "the configured embedder is hashing-v1: no light-edit duplicates" in report
    assert "knots: 5; compared: 5 (all), 10 pairs" in report
    # The ten pairs: 0.1…0.4 against axis 0, and the pairs among the four (x·y + √(1−x²)·√(1−y²)).
    values = [0.1, 0.2, 0.3, 0.4]
    pairs = values + [
        a * b + math.sqrt(1 - a * a) * math.sqrt(1 - b * b) for i, a in enumerate(values) for b in values[i + 1 :]
    ]
    assert f"p50         {np.percentile(pairs, 50):.4f}" in report
    assert f"max         {max(pairs):.4f}" in report


@pytest.mark.django_db
def test_a_large_mind_is_sampled_and_the_report_says_how_many_pairs(the_mind):
    for index in range(6):
        knot_make(mind=the_mind, weight_anchor=1.0, embedding=axis(index))

    report = calibrate("--mind", the_mind.pk, "--max-knots", "4")

    assert "knots: 6; compared: 4 (a uniform sample), 6 pairs" in report


@pytest.mark.django_db
def test_calibrating_a_file_of_texts_embeds_them_with_the_configured_embedder(tmp_path):
    texts = tmp_path / "texts.txt"
    texts.write_text("Anna likes tea\n\nthe server listens on port 8000\nAnna likes green tea\n", encoding="utf-8")

    with override_settings(SYNAPSE_EMBEDDER="hashing"):
        report = calibrate("--texts", str(texts))

    assert "embedding model: hashing-v1" in report
    assert "knots: 3; compared: 3 (all), 3 pairs" in report
    # Two lines change when lower-cased and bare; two have four words or more and lose their middle one.
    assert "light-edit duplicates: 4 pairs" in report
    assert "MATCH_THRESHOLD      p1 " in report and "ANCHOR_FLOOR" in report


@pytest.mark.django_db
def test_an_unknown_mind_or_a_mind_of_one_knot_is_a_clear_error(the_mind):
    with pytest.raises(CommandError, match="No mind with id 'm_nope'"):
        calibrate("--mind", "m_nope")
    knot_make(mind=the_mind, weight_anchor=1.0, embedding=axis(EMBEDDING_DIMENSIONS - 1))
    with pytest.raises(CommandError, match="has 1 knots: a calibration needs at least two"):
        calibrate("--mind", the_mind.pk)


# --- per-embedder defaults -------------------------------------------------------------------------


@pytest.mark.parametrize("embedder", ["hashing", "sentence-transformers"])
def test_each_calibrated_embedder_gets_its_own_thresholds(embedder):
    with override_settings(SYNAPSE_EMBEDDER=embedder):
        for name, value in constants.EMBEDDER_THRESHOLDS[embedder].items():
            assert getattr(synapse_settings, name) == value


def test_an_embedder_without_calibration_falls_back_to_the_originals_values():
    with override_settings(SYNAPSE_EMBEDDER="openai"):
        assert synapse_settings.EMBEDDING_THRESHOLD == 0.55


def test_a_setting_overrides_the_embedders_calibrated_value():
    with override_settings(SYNAPSE_EMBEDDER="hashing", SYNAPSE_EMBEDDING_THRESHOLD=0.7):
        assert synapse_settings.EMBEDDING_THRESHOLD == 0.7
