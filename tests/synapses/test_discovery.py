"""Entity discovery (synapses.promotion.discovery) on the labelled sentences of tests/synapses/data/:
precision and recall per language, printed, and the rules one at a time.

Each language's sentences are read as one mind's memories: what the others say (a word written
capitalised inside a sentence elsewhere, a German noun used without an article) is evidence, as it
is in a promotion batch or a rebuild.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from synapses.promotion.discovery import (
    RULE_HANDLE,
    RULE_KNOWN,
    RULE_RECURRENCE,
    RULE_TITLE,
    Evidence,
    capitalised_mention,
    discover,
    language_of,
)

DATA = Path(__file__).resolve().parent / "data"
# Acceptance 2 of issue 26: per language.
MIN_PRECISION = 0.90
MIN_RECALL = 0.80
MIN_SENTENCES = 75


def labelled(language: str) -> list[tuple[str, set[str]]]:
    rows = []
    for line in (DATA / f"discovery_{language}.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        sentence, _, names = line.partition("\t")
        rows.append((sentence, {name.strip().casefold() for name in names.split("|") if name.strip()}))
    return rows


def scores(language: str) -> tuple[float, float, list[str]]:
    rows = labelled(language)
    evidence = Evidence.of(sentence for sentence, _ in rows)
    true_positive = false_positive = false_negative = 0
    misses = []
    for sentence, expected in rows:
        found = {name.name.casefold() for name in discover(sentence, evidence=evidence)}
        true_positive += len(found & expected)
        false_positive += len(found - expected)
        false_negative += len(expected - found)
        if found != expected:
            misses.append(f"{sentence!r}: extra {sorted(found - expected)}, missed {sorted(expected - found)}")
    precision = true_positive / (true_positive + false_positive)
    recall = true_positive / (true_positive + false_negative)
    return precision, recall, misses


@pytest.mark.parametrize("language", ["en", "de"])
def test_precision_and_recall_per_language(language, capsys):
    rows = labelled(language)
    assert len(rows) >= MIN_SENTENCES
    assert {language_of(sentence) for sentence, _ in rows} == {language}
    precision, recall, misses = scores(language)
    with capsys.disabled():
        print(f"\nentity discovery [{language}] {len(rows)} sentences: precision {precision:.3f}, recall {recall:.3f}")
        for miss in misses:
            print("   ", miss)
    assert precision >= MIN_PRECISION
    assert recall >= MIN_RECALL


def names(text, **kwargs):
    return {(found.name, found.rule) for found in discover(text, **kwargs)}


def test_the_first_contact_sentences_give_their_names_and_no_common_noun():
    english = ["Anna works at Siemens.", "Siemens is headquartered in Munich.", "Anna's sister Marie lives in Hamburg."]
    german = ["Anna arbeitet bei Siemens.", "Siemens hat seinen Hauptsitz in München.",
              "Annas Schwester Marie wohnt in Hamburg."]  # fmt: skip
    for sentences, expected in ((english, {"Anna", "Siemens", "Munich", "Marie", "Hamburg"}),
                                (german, {"Anna", "Siemens", "München", "Marie", "Hamburg"})):  # fmt: skip
        evidence = Evidence.of(sentences)
        found = {name for sentence in sentences for name, _ in names(sentence, evidence=evidence)}
        assert found == expected


def test_a_german_noun_used_once_without_an_article_is_no_name_and_twice_is():
    assert names("Siemens hat seinen Hauptsitz in München.") == {("München", "name-list")}
    mind = ["Anna arbeitet bei Siemens.", "Siemens hat seinen Hauptsitz in München."]
    assert ("Siemens", RULE_RECURRENCE) in names(mind[1], evidence=Evidence.of(mind))
    # Written once with an article, it stays a noun however often it is bare.
    mind.append("Das Siemens ist eine Einheit.")
    assert ("Siemens", RULE_RECURRENCE) not in names(mind[1], evidence=Evidence.of(mind))


def test_an_english_common_word_at_a_sentence_start_needs_a_capital_inside_a_sentence_elsewhere():
    assert names("Will called twice.") == set()
    mind = ["I met Will at lunch.", "Will called twice."]
    assert names(mind[1], evidence=Evidence.of(mind)) == {("Will", RULE_RECURRENCE)}


def test_handles_titles_and_known_names():
    assert names("Ask @anna_k about it, mail bob@example.com.") == {("@anna_k", RULE_HANDLE)}
    assert names("We saw the film “Alien” twice.") == {("Alien", RULE_TITLE)}
    assert names("she said “yes, fine.”") == set()
    assert ("Post", RULE_KNOWN) in names("Bring the letter to the Post.", known=["Post"])
    assert names("I will post the letter.", known=["Post"]) == set()


def test_months_weekdays_and_pronouns_are_not_names():
    assert names("We meet in May. March was cold. On Sunday we rest.") == set()
    assert names("Im Mai fahren wir weg. Am Sonntag ruhen wir.") == set()


def test_a_known_common_word_counts_only_with_its_capitals():
    assert capitalised_mention("Ask Will about it.", "Will") is True
    assert capitalised_mention("I will ask.", "Will") is False
    assert capitalised_mention("met anna today", "Anna") is True  # not a common word: any case
