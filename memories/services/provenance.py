"""Who a memory comes from: its source, speaker, starting confidence and whether the writer's
word verifies it — the rules of a store, an update, a sync and an import, in one place.

A human's word is their own (`source: user`) and verifies what they write; a Mind Key writes as
an agent or a tool and verifies nothing. A store refuses a Mind Key's claim of `source: user`
(the client should send `speaker: user`); an import, which carries files written elsewhere,
downgrades it instead (`ImportResult.downgraded` counts them).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError

from memories.models import Source, Speaker
from minds.access import Caller

# Confidence when the client gives none: a human's word is certain, an agent's is inferred.
CONFIDENCE_USER = 1.0
CONFIDENCE_OTHER = 0.7


@dataclass(frozen=True)
class Provenance:
    source: str
    speaker: str | None  # None: the speaker of the source (speaker_of_source)


def speaker_of_source(source: str) -> str:
    """The speaker a memory has when the client names none: the user's words are the user's."""
    return Speaker.USER if source == Source.USER else Speaker.AGENT


def confidence_of_source(source: str) -> float:
    """The confidence a memory starts with when the client gives none."""
    return CONFIDENCE_USER if source == Source.USER else CONFIDENCE_OTHER


def caller_vouches(caller: Caller) -> bool:
    """Whether what `caller` writes counts as verified by them: only a human's does."""
    return not caller.is_agent


def write_source(caller: Caller, requested: str | None) -> str:
    """The source of a store, update or sync item by `caller`, who asked for `requested` (None: no
    wish). Django's ValidationError naming `source` for a claim the caller cannot make."""
    if caller_vouches(caller):
        if requested not in (None, Source.USER):
            raise ValidationError({"source": ["A human's memories are always source 'user'; leave source out."]})
        return Source.USER
    if requested == Source.USER:
        raise ValidationError(
            {"source": ["A Mind Key cannot store source 'user'. To record the user's own words, send speaker: 'user'."]}
        )
    return requested or Source.AGENT


def import_provenance(caller: Caller, *, source: str | None, speaker: str | None) -> Provenance:
    """Source and speaker of an imported memory that the file says came from `source` and
    `speaker`. A human keeps the file's source (`user` when it names none); a Mind Key's import
    carries no human authority: `source: user` becomes `agent`, and the speaker stays `user`,
    whose words they are."""
    if caller_vouches(caller):
        return Provenance(source=source or Source.USER, speaker=speaker)
    if source == Source.USER:
        return Provenance(source=Source.AGENT, speaker=speaker or Speaker.USER)
    return Provenance(source=source or Source.AGENT, speaker=speaker)


def import_verified(caller: Caller, *, source: str, verified: bool | None) -> bool:
    """Whether an imported memory of `source` is stored verified: as the file says (a memory of the
    user's own is, when it says nothing) for a human, who vouches by importing; never for a Mind Key."""
    if not caller_vouches(caller):
        return False
    return source == Source.USER if verified is None else verified


def import_downgrades(caller: Caller, *, source: str | None, verified: bool | None) -> bool:
    """Whether `caller`'s import stores a memory with less than the file claims for it: a Mind Key's
    of one that says it is the user's own (`source: user`) or verified, which only a human may give."""
    return not caller_vouches(caller) and (source == Source.USER or bool(verified))
