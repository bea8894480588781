"""Write operations on users, minds, keys and shares. Keyword-only, transactional."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memories.keys import mind_key_digest, mind_key_generate
from memories.models import Mind, MindKey

User = get_user_model()


def email_normalize(email: str) -> str:
    """Emails are compared case-insensitively; we store them lower-cased."""
    return email.strip().lower()


@transaction.atomic
def user_register(*, email: str, password: str):
    """A new human account; the email is also the username. Django's password validators apply."""
    email = email_normalize(email)
    if User.objects.filter(username=email).exists():
        raise ValidationError({"email": ["An account with this email already exists; log in instead."]})
    user = User(username=email, email=email)
    validate_password(password, user=user)
    user.set_password(password)
    user.full_clean()
    user.save()
    return user


@dataclass(frozen=True)
class IssuedKey:
    """A freshly issued key: the row, and the plaintext that is shown exactly once."""

    key: MindKey
    plaintext: str


def mind_key_issue(*, mind: Mind, label: str = "") -> IssuedKey:
    plaintext, prefix = mind_key_generate()
    key = MindKey(mind=mind, label=label.strip(), prefix=prefix, digest=mind_key_digest(plaintext))
    key.full_clean()
    key.save()
    return IssuedKey(key=key, plaintext=plaintext)


def mind_key_revoke(*, key: MindKey) -> MindKey:
    """Revoke once; revoking again keeps the first revocation time."""
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


@transaction.atomic
def mind_create(*, owner, name: str, description: str = "", key_label: str = "first key") -> tuple[Mind, IssuedKey]:
    """A new mind with its first Mind Key."""
    mind = Mind(owner=owner, name=name.strip(), description=description.strip())
    mind.full_clean()
    mind.save()
    return mind, mind_key_issue(mind=mind, label=key_label)


# The account `make run` creates on the first start.
DEMO_EMAIL = "demo@example.com"
DEMO_MIND_NAME = "Demo mind"


@dataclass(frozen=True)
class DemoAccount:
    email: str
    password: str
    mind: Mind
    key: IssuedKey


@transaction.atomic
def demo_account_ensure() -> DemoAccount | None:
    """Create the demo user and mind once; None when they already exist (nothing is shown twice)."""
    if User.objects.filter(username=DEMO_EMAIL).exists():
        return None
    password = secrets.token_urlsafe(12)
    user = user_register(email=DEMO_EMAIL, password=password)
    mind, issued = mind_create(owner=user, name=DEMO_MIND_NAME, description="Created by make run.", key_label="demo")
    return DemoAccount(email=DEMO_EMAIL, password=password, mind=mind, key=issued)
