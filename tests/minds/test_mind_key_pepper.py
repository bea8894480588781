"""The Mind Key pepper survives going to production: kept in var/, initialised on an old var/ to
the secret key the keys were made with, kept under DEBUG=false and a new SECRET_KEY; minds.W001
warns when MIND_KEY_PEPPER would change it under existing keys."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
from pathlib import Path

from django.core.management import call_command

from memoryproject.var_secrets import PEPPER_FILE_NAME, Pepper, mind_key_pepper
from minds.checks import PEPPER_CHANGED, mind_key_pepper_check
from minds.services import mind_create

REPO = Path(__file__).resolve().parents[2]
OLD_SECRET = "the-secret-key-of-an-old-checkout-" + "s" * 20
# What the settings say in a fresh process: the pepper in effect and what var/ keeps.
_PRINT_PEPPER = (
    "import json, django; from django.conf import settings; django.setup(); "
    "state = settings.MIND_KEY_PEPPER_STATE; print(json.dumps([settings.MIND_KEY_PEPPER, state.kept, state.origin]))"
)


def _settings_pepper(var_dir: Path, **environment: str) -> list[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("SECRET_KEY", "MIND_KEY_PEPPER", "DEBUG")}
    env.update(DJANGO_SETTINGS_MODULE="memoryproject.settings", SYNAPSE_VAR_DIR=str(var_dir), **environment)
    done = subprocess.run(
        [sys.executable, "-c", _PRINT_PEPPER], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# Never connected to: the settings only parse it (an embedded server would start at import).
UNUSED_DATABASE = "postgres://synapse:pw@127.0.0.1:1/synapse"


def _old_var_dir(tmp_path: Path) -> Path:
    """A var/ of a checkout from before the pepper had its file: its generated secret key."""
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    (var_dir / "secret_key").write_text(OLD_SECRET)
    return var_dir


def test_an_old_var_keeps_the_secret_key_its_keys_were_made_with_through_debug_off_and_a_new_secret(tmp_path):
    var_dir = _old_var_dir(tmp_path)
    # The digest an old key was stored with: HMAC-SHA256 keyed with the old secret key.
    old_digest = hmac.new(OLD_SECRET.encode(), b"mk_0123abcd_agent-key", hashlib.sha256).hexdigest()

    # The first start of the new release is already the production one: a new secret, DEBUG off.
    production = {"DEBUG": "false", "DATABASE_URL": UNUSED_DATABASE}
    first = _settings_pepper(var_dir, **production, SECRET_KEY="a-new-production-secret-" + "n" * 30)
    later = _settings_pepper(var_dir, **production, SECRET_KEY="rotated-again-" + "r" * 40)
    local = _settings_pepper(var_dir, DEBUG="true", DATABASE_URL=UNUSED_DATABASE)

    assert first == [OLD_SECRET, OLD_SECRET, "secret_key"]
    assert (var_dir / PEPPER_FILE_NAME).read_text() == OLD_SECRET
    assert later == local == [OLD_SECRET, OLD_SECRET, "file"]
    assert hmac.new(later[0].encode(), b"mk_0123abcd_agent-key", hashlib.sha256).hexdigest() == old_digest
    assert (var_dir / PEPPER_FILE_NAME).stat().st_mode & 0o777 == 0o600


def test_a_deployment_without_var_secret_key_keeps_the_secret_key_it_is_given(tmp_path):
    first = mind_key_pepper(var_dir=tmp_path, configured=None, secret_key="env-secret", database_is_new=False)
    later = mind_key_pepper(var_dir=tmp_path, configured=None, secret_key="rotated", database_is_new=False)

    assert (first.value, first.origin) == ("env-secret", "secret_key")
    assert (later.value, later.origin, later.changed) == ("env-secret", "file", False)


def test_a_new_database_gets_a_random_pepper_of_its_own(tmp_path):
    pepper = mind_key_pepper(var_dir=tmp_path / "var", configured=None, secret_key="s", database_is_new=True)
    again = mind_key_pepper(var_dir=tmp_path / "var", configured=None, secret_key="s", database_is_new=False)

    assert pepper.origin == "random"
    assert pepper.value == (tmp_path / "var" / PEPPER_FILE_NAME).read_text()
    assert len(pepper.value) >= 50
    assert (again.value, again.origin) == (pepper.value, "file")


def test_a_configured_pepper_wins_writes_nothing_and_is_a_change_against_a_kept_one(tmp_path):
    configured = mind_key_pepper(var_dir=tmp_path, configured="pepper-one", secret_key="s", database_is_new=False)
    assert not (tmp_path / PEPPER_FILE_NAME).exists()
    kept = mind_key_pepper(var_dir=tmp_path, configured=None, secret_key="old-secret", database_is_new=False)
    overridden = mind_key_pepper(var_dir=tmp_path, configured="pepper-two", secret_key="s", database_is_new=False)

    assert (configured.value, configured.origin, configured.changed) == ("pepper-one", "environment", False)
    assert (kept.value, kept.origin) == ("old-secret", "secret_key")
    assert (overridden.value, overridden.kept, overridden.changed) == ("pepper-two", "old-secret", True)


def test_w001_warns_when_the_pepper_would_change_under_existing_keys(db, owner, settings):
    settings.MIND_KEY_PEPPER_STATE = Pepper(value="new", kept="old", origin="file")
    assert mind_key_pepper_check() == []  # no key yet: nothing breaks

    mind_create(owner=owner.user, name="with a key")
    warnings = mind_key_pepper_check()

    assert [warning.id for warning in warnings] == [PEPPER_CHANGED]
    assert "1 existing Mind Key" in warnings[0].msg


def test_w001_is_silent_while_the_pepper_is_the_kept_one(db, mind, settings):
    settings.MIND_KEY_PEPPER_STATE = Pepper(value="same", kept="same", origin="file")

    assert mind_key_pepper_check() == []
    call_command("check", "--fail-level", "WARNING")  # the real settings: no warning either
