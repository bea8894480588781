"""An installation from before the default embedder changed: its var/ holds hashing vectors and no
record of an embedder. `manage.py serve` without SYNAPSE_EMBEDDER must keep hashing, say so and
say how to switch, and go on storing into the old mind."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from memoryproject.embedded.port import free_port
from tests.servers import ROOT, Served, request_json, server_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(os.environ.get("DATABASE_URL")), reason="the old installation is a var/ with its embedded database"
    ),
]

# What the old version did on that var/: a mind with a memory, embedded by hashing (the then default),
# and no `memories_installationembedder` row (that version had no such table; the row is removed).
OLD_INSTALLATION_SCRIPT = """
from memories.models import InstallationEmbedder
from memories.services.memory import memory_store
from minds.access import caller_of
from minds.services import mind_create, user_register
owner = user_register(email="old@example.com", password="an old installation's long password")
mind, issued = mind_create(owner=owner, name="Old mind")
memory_store(mind=mind, fields={"category": "fact", "content": "Office is in Berlin"}, caller=caller_of(owner))
InstallationEmbedder.objects.all().delete()
print(issued.plaintext)
"""


def test_an_old_hashing_var_starts_unchanged_and_says_how_to_switch(migrated_var_dir):
    made = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", OLD_INSTALLATION_SCRIPT],
        cwd=ROOT,
        env=server_env(migrated_var_dir, SYNAPSE_EMBEDDER="hashing"),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    key = made.stdout.split()[-1]
    served = Served(migrated_var_dir, free_port(), env={"SYNAPSE_EMBEDDER": ""})  # the variable unset
    try:
        served.wait_healthy()
        assert "Embedder: hashing (recorded for this installation; SYNAPSE_EMBEDDER overrides it)." in served.output
        assert "SYNAPSE_EMBEDDER=minilm-onnx .venv/bin/python manage.py reembed --all" in served.output
        # The old mind takes new memories: with another embedder this would be a 409.
        status, body = request_json(
            f"{served.base}/memory",
            method="POST",
            token=key,
            body={"category": "fact", "content": "Lunch at noon"},
        )
        assert status == 201, body
        status, body = request_json(f"{served.base}/memory/search?q=Berlin", token=key)
        assert status == 200 and [hit["content"] for hit in body["results"]] == ["Office is in Berlin"], body
    finally:
        served.stop()
