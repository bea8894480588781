"""System checks: configuration mistakes reported when a command starts, not on the first request."""

from __future__ import annotations

from importlib.util import find_spec

from django.conf import settings
from django.core.checks import Error, register

from memories.embedders.sentence_transformers import MODEL_PACKAGE

# The packages the sentence-transformers embedder loads (requirements-semantic.txt).
SEMANTIC_PACKAGES = ("sentence_transformers", MODEL_PACKAGE)


@register()
def embedder_packages_installed(app_configs, **kwargs) -> list[Error]:
    if settings.SYNAPSE_EMBEDDER != "sentence-transformers":
        return []
    missing = [name for name in SEMANTIC_PACKAGES if find_spec(name) is None]
    if not missing:
        return []
    return [
        Error(
            f"SYNAPSE_EMBEDDER=sentence-transformers needs {', '.join(missing)}, which is not installed.",
            hint="Install it: .venv/bin/pip install -r requirements-semantic.txt (or choose SYNAPSE_EMBEDDER=hashing).",
            id="memories.E001",
        )
    ]
