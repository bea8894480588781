"""Which embedder runs: the installation's record when SYNAPSE_EMBEDDER is unset, and each mind's guard.

- A new installation (no stored vectors) records `DEFAULT_BACKEND` when a process first needs an
  embedder; an installation from before the default changed records the backend its stored
  vectors come from (hashing), so an upgrade changes nothing. The record is one row
  (`InstallationEmbedder`), read once per process. `SYNAPSE_EMBEDDER`, when set, wins.
- A mind's `embedding_model` names the embedder of its vectors. An embedder with another name is
  refused for that mind (a store would mix two vector spaces, a search would compare them) with a
  409 that says what to run: `manage.py reembed`, which moves the mind over when it is done.

docs/embeddings.md → "Which embedder runs".
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.db import transaction
from django.db.models import Count

from memories.embedders.hashing import HASHING_EMBEDDER_NAME
from memories.embedders.onnx_minilm import ONNX_MINILM_NAME
from memories.embedders.sentence_transformers import SENTENCE_TRANSFORMER_NAME
from memories.models import InstallationEmbedder, Memory
from memoryproject.core.domain import Conflict
from minds.models import Mind

# The embedder a new installation runs (SYNAPSE_EMBEDDER unset, nothing stored yet). Until 0.x it
# was hashing; existing installations keep what they recorded (CHANGELOG, docs/embeddings.md).
DEFAULT_BACKEND = "minilm-onnx"
# The backend whose vectors carry each fixed `embedding_model` name (openai's is `openai:<model>`).
BACKEND_OF_MODEL = {
    HASHING_EMBEDDER_NAME: "hashing",
    ONNX_MINILM_NAME: "minilm-onnx",
    SENTENCE_TRANSFORMER_NAME: "sentence-transformers",
}
OPENAI_MODEL_PREFIX = "openai:"

_lock = threading.Lock()
_recorded: list[str] = []  # the installation's backend once read: [] until then


class EmbedderMismatch(Conflict):
    """The mind's vectors come from another embedder than the server runs (a 409 naming the fix)."""

    code = "embedder_mismatch"


def backend_of_model(name: str) -> str | None:
    """The SYNAPSE_EMBEDDER value that makes vectors named `name`, or None for an unknown name."""
    if name.startswith(OPENAI_MODEL_PREFIX):
        return "openai"
    return BACKEND_OF_MODEL.get(name)


def configured_backend() -> str:
    """SYNAPSE_EMBEDDER when set, else the installation's recorded backend."""
    return settings.SYNAPSE_EMBEDDER or installation_backend()


def installation_backend() -> str:
    """The backend recorded for this installation, recording it first if there is none yet."""
    if not _recorded:
        with _lock:
            if not _recorded:
                _recorded.append(_read_or_record())
    return _recorded[0]


def installation_backend_forget() -> None:
    """Read the record again on next use (after `reembed --all` rewrote it; tests)."""
    with _lock:
        _recorded.clear()


def _read_or_record() -> str:
    backend = InstallationEmbedder.objects.values_list("backend", flat=True).first()
    if backend:
        return backend
    with transaction.atomic():
        record, _ = InstallationEmbedder.objects.get_or_create(
            pk=1, defaults={"backend": stored_vectors_backend() or DEFAULT_BACKEND}
        )
    return record.backend


def stored_vectors_backend() -> str | None:
    """The backend most stored vectors come from (an installation from before the record), or None."""
    top = (
        Memory.objects.filter(embedding__isnull=False)
        .exclude(embedding_model="")
        .values("embedding_model")
        .annotate(n=Count("id"))
        .order_by("-n", "embedding_model")
        .first()
    )
    return backend_of_model(top["embedding_model"]) if top else None


def installation_backend_record(backend: str) -> None:
    """Make `backend` the installation's embedder (after every mind was re-embedded with it)."""
    InstallationEmbedder.objects.update_or_create(pk=1, defaults={"backend": backend})
    installation_backend_forget()


def mind_embedder_check(mind_id: str, name: str, *, claim: bool = False) -> None:
    """Refuse to use embedder `name` on a mind whose vectors another embedder made.

    `claim` (a write of vectors): a mind without vectors yet takes `name` as its embedder.
    """
    recorded = Mind.objects.filter(pk=mind_id).values_list("embedding_model", flat=True).first()
    if recorded is None:
        return  # no such mind: the caller's own lookup says so
    if not recorded:
        if not claim or Mind.objects.filter(pk=mind_id, embedding_model="").update(embedding_model=name):
            return
        # Another process claimed the mind between the read and the claim: its record decides.
        recorded = Mind.objects.filter(pk=mind_id).values_list("embedding_model", flat=True).first() or ""
    mind_embedder_refuse(mind_id, recorded=recorded, running=name)


def mind_embedder_check_loaded(mind: Mind, name: str) -> None:
    """mind_embedder_check(claim=True) for a mind row this request already read (the Mind Key's
    or the session's): no second read of the mind on the store path once it records an embedder."""
    if mind.embedding_model:
        mind_embedder_refuse(mind.pk, recorded=mind.embedding_model, running=name)
    else:  # its first vectors, or another process claimed it since the row was read: read and claim
        mind_embedder_check(mind.pk, name, claim=True)


def mind_embedder_refuse(mind_id: str, *, recorded: str, running: str) -> None:
    """EmbedderMismatch when the mind records another embedder than `running` (a loaded mind's field)."""
    if recorded and recorded != running:
        raise EmbedderMismatch(mismatch_message(mind_id, recorded=recorded, running=running))


def mismatch_message(mind_id: str, *, recorded: str, running: str) -> str:
    backend = backend_of_model(recorded)
    back = f"SYNAPSE_EMBEDDER={backend}" if backend else f"the embedder that makes {recorded!r}"
    return (
        f"The memories of mind {mind_id} carry vectors of {recorded!r}; this server embeds with {running!r}, "
        "and vectors of two embedders cannot be compared. Re-embed the mind with the server's embedder: "
        f"python manage.py reembed --mind {mind_id} (or --all), with the server's SYNAPSE_EMBEDDER; "
        f"or run the server with {back}."
    )


def mind_embedder_settle(mind_id: str, name: str) -> bool:
    """After a re-embedding: the mind carries `name` if no vector of another embedder is left; True then."""
    mixed = Memory.objects.filter(mind_id=mind_id, embedding__isnull=False).exclude(embedding_model=name).exists()
    if not mixed:
        Mind.objects.filter(pk=mind_id).update(embedding_model=name)
    return not mixed


def startup_report() -> list[str]:
    """What `manage.py serve` says at start: the embedder in force and, for an older one, how to switch."""
    backend = configured_backend()
    if settings.SYNAPSE_EMBEDDER:
        lines = [f"Embedder: {backend} (SYNAPSE_EMBEDDER)."]
    else:
        lines = [f"Embedder: {backend} (recorded for this installation; SYNAPSE_EMBEDDER overrides it)."]
        if backend != DEFAULT_BACKEND:
            lines.append(
                f"  New installations embed with {DEFAULT_BACKEND} (a semantic model: it finds meaning, not only "
                f"shared words). To switch this one, stop the server and run\n"
                f"    SYNAPSE_EMBEDDER={DEFAULT_BACKEND} .venv/bin/python manage.py reembed --all\n"
                "  then start it again (docs/embeddings.md → switching embedders)."
            )
    if backend == "minilm-onnx":
        from memories.embedders import EmbedderUnavailable
        from memories.embedders.onnx_minilm import model_file, verified_model_file

        try:
            verified_model_file(model_file())  # a missing or altered model is told now, not on the first store
        except EmbedderUnavailable as error:
            lines.append(f"  Warning: {error.message}")
    return lines
