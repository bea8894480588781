"""Emotion labels and the 8-sector wheel (docs/synapse-model.md, "Recall with resonance"). Pure: no Django imports.

A memory's `emotion` is a free label; it is canonicalised through EMOTION_SYNONYMS onto one of
the eight Plutchik sectors. `neutral` is a known label with no sector (it colours nothing).
"""

from __future__ import annotations

# The wheel in order; the ring distance between two sectors is measured along this list.
SECTORS: tuple[str, ...] = ("joy", "trust", "fear", "surprise", "sadness", "disgust", "anger", "anticipation")

NEUTRAL = "neutral"

# label → sector. English names and German labels (with and without umlauts).
EMOTION_SYNONYMS: dict[str, str] = {
    # joy
    "joy": "joy", "happy": "joy", "happiness": "joy", "excitement": "joy", "excited": "joy", "delight": "joy",
    "freude": "joy", "begeisterung": "joy",
    # trust
    "trust": "trust", "gratitude": "trust", "grateful": "trust", "contentment": "trust", "content": "trust",
    "dankbarkeit": "trust", "zufriedenheit": "trust", "vertrauen": "trust",
    # fear
    "fear": "fear", "stress": "fear", "anxiety": "fear", "worry": "fear", "insecurity": "fear", "afraid": "fear",
    "angst": "fear", "unsicherheit": "fear",
    # surprise
    "surprise": "surprise", "surprised": "surprise", "astonishment": "surprise", "wonder": "surprise",
    "ueberrascht": "surprise", "überrascht": "surprise", "verwundert": "surprise", "ueberraschung": "surprise",
    "überraschung": "surprise",
    # sadness
    "sadness": "sadness", "sad": "sadness", "grief": "sadness", "despair": "sadness",
    "traurigkeit": "sadness", "verzweiflung": "sadness", "trauer": "sadness",
    # disgust / disappointment
    "disgust": "disgust", "disappointment": "disgust", "frustration": "disgust", "frustrated": "disgust",
    "enttaeuschung": "disgust", "enttäuschung": "disgust", "ekel": "disgust",
    # anger
    "anger": "anger", "angry": "anger", "rage": "anger", "annoyance": "anger",
    "wut": "anger", "aerger": "anger", "ärger": "anger",
    # anticipation
    "anticipation": "anticipation", "hope": "anticipation", "curiosity": "anticipation", "curious": "anticipation",
    "hoffnung": "anticipation", "neugierig": "anticipation", "neugier": "anticipation", "vorfreude": "anticipation",
}  # fmt: skip


def emotion_canonical(label: str) -> str | None:
    """The known label in canonical spelling (lower-case, trimmed), or None when unknown."""
    word = label.strip().lower()
    if word == NEUTRAL or word in EMOTION_SYNONYMS:
        return word
    return None


def known_emotion_labels() -> list[str]:
    return sorted({NEUTRAL, *EMOTION_SYNONYMS})
