"""Secrets a checkout keeps in its `var/` directory: the Mind Key pepper (the secret key's file is
written by the settings themselves).

Django-free: the settings call it before Django is set up.

The pepper keys every Mind Key digest, so it must never change under existing keys.

- `MIND_KEY_PEPPER` from the environment, when set, is the pepper (an operator's explicit choice);
  nothing is written. When `var/mind_key_pepper` holds another value, the check `minds.W001`
  warns while Mind Keys exist.
- Otherwise the pepper is kept in `var/mind_key_pepper`, written the first time the settings load
  and read from there ever after, whatever `SECRET_KEY` and `DEBUG` say later. Its first value is
  random when the checkout's embedded database does not exist yet (no key can exist), else the
  value the existing keys were made with — before this file existed, `MIND_KEY_PEPPER or
  SECRET_KEY` — so none of them breaks: `var/secret_key` when it exists (it is written only
  while no SECRET_KEY is given, so a checkout that has one made its keys with it, even when this
  first start already brings a new SECRET_KEY, going to production), else the SECRET_KEY given
  (a `DATABASE_URL` deployment, which always had to give it).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

PEPPER_FILE_NAME = "mind_key_pepper"
# Where the settings keep the secret key they generate (memoryproject/settings.py, _secret_key).
SECRET_KEY_FILE_NAME = "secret_key"  # noqa: S105 (a file name, not a secret)


@dataclass(frozen=True)
class Pepper:
    value: str  # the pepper in effect
    kept: str  # the pepper var/ keeps: the one existing keys were made with
    origin: str  # where `kept` came from this time: file, environment, random or secret_key

    @property
    def changed(self) -> bool:
        """The pepper in effect is not the one the existing keys were made with."""
        return self.value != self.kept


def _kept_write(path: Path, value: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value)
    path.chmod(0o600)


def mind_key_pepper(*, var_dir: Path, configured: str | None, secret_key: str, database_is_new: bool) -> Pepper:
    """The Mind Key pepper; writes `var_dir/mind_key_pepper` the first time (see the module)."""
    path = var_dir / PEPPER_FILE_NAME
    if path.exists():
        kept, origin = path.read_text().strip(), "file"
    elif configured:
        # Not written: a process given its pepper (a test run, a one-off command) must not decide
        # the pepper of the checkout's var/.
        kept, origin = configured, "environment"
    else:
        if database_is_new:
            kept, origin = secrets.token_urlsafe(50), "random"
        else:
            generated = var_dir / SECRET_KEY_FILE_NAME
            kept = generated.read_text().strip() if generated.exists() else secret_key
            origin = "secret_key"
        _kept_write(path, kept)
    return Pepper(value=configured or kept, kept=kept, origin=origin)
