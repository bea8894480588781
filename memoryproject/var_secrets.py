"""Secrets a checkout keeps in its `var/` directory: the Mind Key pepper (the secret key's file is
written by the settings themselves).

Django-free: the settings call it before Django is set up.

The pepper keys every Mind Key digest, so it must never change under existing keys. It is kept in
`var/mind_key_pepper` the first time the settings load, and read from there ever after, whatever
`SECRET_KEY` and `DEBUG` say later. Its first value:

- `MIND_KEY_PEPPER` from the environment, when set;
- else random, when the checkout's embedded database does not exist yet (no key can exist);
- else the secret key in effect: before this file existed every key was made with
  `MIND_KEY_PEPPER or SECRET_KEY`, so an existing `var/` (or a `DATABASE_URL` deployment) keeps
  the value its keys were made with and none of them breaks.

`MIND_KEY_PEPPER` set later to another value than the file's wins (an operator's explicit
choice), and the check `minds.W001` warns while Mind Keys exist.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

PEPPER_FILE_NAME = "mind_key_pepper"


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
        kept, origin = configured, "environment"
    elif database_is_new:
        kept, origin = secrets.token_urlsafe(50), "random"
    else:
        kept, origin = secret_key, "secret_key"
    if origin != "file":
        _kept_write(path, kept)
    return Pepper(value=configured or kept, kept=kept, origin=origin)
