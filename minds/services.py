"""Write operations on users, minds, keys and shares. Keyword-only, transactional."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from memoryproject.core.domain import Conflict
from minds.mindkeys import mind_key_digest, mind_key_generate
from minds.models import Mind, MindKey, MindShare, RevokedSession, TokenEpoch
from minds.signals import mind_deleting

User = get_user_model()

EMAIL_TAKEN = "An account with this email already exists; log in instead."
LOGIN_FAILED = "Wrong email or password."
# Tries at finding an unused key prefix (32 random bits; a clash is rare, two in a row rarer).
KEY_PREFIX_ATTEMPTS = 5


def email_normalize(email: str) -> str:
    """Emails are compared case-insensitively; we store them lower-cased."""
    return email.strip().lower()


# --- Users and tokens -----------------------------------------------------------------------


@transaction.atomic
def user_register(*, email: str, password: str):
    """A new human account; the email is also the username. Django's password validators apply.

    Raises ValidationError naming `email` (taken) or `password` (too weak).
    """
    email = email_normalize(email)
    if User.objects.filter(username=email).exists():
        raise ValidationError({"email": [EMAIL_TAKEN]})
    user = User(username=email, email=email)
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        raise ValidationError({"password": error.messages}) from None
    user.set_password(password)
    # Not the username: Django's username validator refuses characters emails may hold (o'brien@…),
    # and its uniqueness was checked above (and is guarded by the database below).
    user.full_clean(exclude=["username"], validate_unique=False)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # registered concurrently between the check and the insert
        raise ValidationError({"email": [EMAIL_TAKEN]}) from None
    return user


def user_for_credentials(*, email: str, password: str, request=None):
    """The active account of `email` when `password` is its password, else None.

    Callers run it under the login policy (minds.login_policy.login_attempt), which counts the
    Nones; the API issues the tokens (minds.api.tokens): minting them is HTTP's business.
    """
    return authenticate(request=request, username=email_normalize(email), password=password)


def token_epoch_bump(*, user_id: int) -> int:
    """Revokes every token of the account (a password change, a deactivation): the new epoch."""
    with transaction.atomic():
        epoch, _ = TokenEpoch.objects.select_for_update().get_or_create(user_id=user_id)
        epoch.epoch += 1
        epoch.save(update_fields=["epoch", "bumped_at"])
    return epoch.epoch


def session_revoke(*, user, sid: str, expires_at) -> None:
    """Revokes one login's tokens (POST /logout); revoking twice is harmless."""
    RevokedSession.objects.get_or_create(sid=sid, defaults={"user": user, "expires_at": expires_at})


def revoked_sessions_purge(*, now=None) -> int:
    """Forgets revoked logins whose every token has expired anyway; how many."""
    deleted, _ = RevokedSession.objects.filter(expires_at__lt=now or timezone.now()).delete()
    return deleted


# --- Minds ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class IssuedKey:
    """A freshly issued key: the row, and the plaintext that is shown exactly once."""

    key: MindKey
    plaintext: str


@transaction.atomic
def mind_key_issue(*, mind: Mind, label: str = "") -> IssuedKey:
    """A new Mind Key; only its prefix and HMAC digest are stored."""
    for _attempt in range(KEY_PREFIX_ATTEMPTS):
        plaintext, prefix = mind_key_generate()
        key = MindKey(mind=mind, label=label.strip(), prefix=prefix, digest=mind_key_digest(plaintext))
        # The prefix's uniqueness is the database's to guard (the savepoint below): checking it
        # here too would only add a query.
        key.full_clean(exclude=["mind"], validate_unique=False)
        try:
            with transaction.atomic():
                key.save()
        except IntegrityError:  # 8 random hex characters collided with an existing prefix: draw again
            continue
        return IssuedKey(key=key, plaintext=plaintext)
    raise RuntimeError(f"No free Mind Key prefix in {KEY_PREFIX_ATTEMPTS} attempts.")


@transaction.atomic
def mind_key_revoke(*, key: MindKey) -> MindKey:
    """Revoke once; revoking again keeps the first revocation time. The key answers 401 from now on."""
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


@transaction.atomic
def mind_create(*, owner, name: str, description: str = "", key_label: str = "first key") -> tuple[Mind, IssuedKey]:
    """A new mind with its first Mind Key."""
    mind = Mind(owner=owner, name=name.strip(), description=description.strip())
    mind.full_clean(exclude=["owner"], validate_unique=False)  # a fresh random id; the owner is the caller
    mind.save()
    return mind, mind_key_issue(mind=mind, label=key_label)


@transaction.atomic
def mind_update(*, mind: Mind, name: str | None = None, description: str | None = None) -> Mind:
    """Rename or re-describe a mind; None leaves a field as it is."""
    if name is not None:
        mind.name = name.strip()
    if description is not None:
        mind.description = description.strip()
    mind.full_clean(exclude=["owner"], validate_unique=False)
    mind.save(update_fields=["name", "description", "updated_at"])
    return mind


@transaction.atomic
def mind_delete(*, mind: Mind) -> None:
    """Delete a mind and, by CASCADE, everything that points at it: its keys, shares, memories,
    audit rows, idempotency records and log rows. The apps above hear of it first
    (`minds.signals.mind_deleting`).

    The mind's row is locked FOR UPDATE first. A transaction still inserting a row that points at
    the mind (the pipeline log's writer flushing the mind's last requests, a memory being stored)
    holds a KEY SHARE lock on it, so the lock waits for those to commit and the cascade's deletes,
    which come after, see their rows. Without it such a row, committed between the cascade and
    the mind's own delete, failed the foreign key at commit: an IntegrityError, a 500. Inserts
    that come later wait for this delete and then find the mind gone (the log's writer keeps
    such rows without their mind, `pipelinelog.writer`)."""
    list(Mind.objects.select_for_update().filter(pk=mind.pk).values_list("pk", flat=True))
    mind_deleting.send(sender=Mind, mind_id=mind.pk)
    mind.delete()


# --- Shares ---------------------------------------------------------------------------------


@transaction.atomic
def mind_share_create(*, mind: Mind, user_email: str, acl: str) -> MindShare:
    """Share `mind` with the account of `user_email`.

    ValidationError naming `user_email` for an unknown account or the owner; Conflict (409)
    when that account already has a share (change it with mind_share_update instead).
    """
    user = User.objects.filter(username=email_normalize(user_email)).first()
    if user is None:
        raise ValidationError({"user_email": ["No account has this email; ask them to register first."]})
    try:
        return mind_share_grant(mind=mind, user=user, acl=acl)
    except ValidationError as error:
        # The API's field is the email it was given, not the model's `user`.
        raise ValidationError(
            {("user_email" if name == "user" else name): messages for name, messages in error.message_dict.items()}
        ) from None


@transaction.atomic
def mind_share_grant(*, mind: Mind, user, acl: str) -> MindShare:
    """Share `mind` with `user` (a User); the checks of mind_share_create, the user already found."""
    existing = MindShare.objects.filter(mind=mind, user=user).first()
    if existing is not None:
        raise Conflict(
            f"The mind is already shared with {user.email} (share {existing.pk}, {existing.acl}); "
            f"change it with PUT /minds/{mind.pk}/shares/{existing.pk}."
        )
    share = MindShare(mind=mind, user=user, acl=acl)
    # MindShare.clean refuses the owner; the existing share was looked up above and the
    # database guards a concurrent one, so no foreign-key or uniqueness queries here.
    share.full_clean(exclude=["mind", "user"], validate_unique=False, validate_constraints=False)
    try:
        with transaction.atomic():
            share.save()
    except IntegrityError:  # shared concurrently
        raise Conflict(f"The mind is already shared with {user.email}.") from None
    return share


@transaction.atomic
def mind_share_update(*, share: MindShare, acl: str) -> MindShare:
    share.acl = acl
    share.full_clean(exclude=["mind", "user"], validate_unique=False, validate_constraints=False)
    share.save(update_fields=["acl", "updated_at"])
    return share


@transaction.atomic
def mind_share_delete(*, share: MindShare) -> None:
    share.delete()


# --- Demo account ---------------------------------------------------------------------------

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
def demo_account_ensure(*, admin: bool = False) -> DemoAccount | None:
    """Create the demo user and mind once; None when they already exist (nothing is shown twice).

    `admin` makes the user staff and superuser, so the local demo account opens the admin.
    """
    if User.objects.filter(username=DEMO_EMAIL).exists():
        return None
    password = secrets.token_urlsafe(12)
    user = user_register(email=DEMO_EMAIL, password=password)
    if admin:
        User.objects.filter(pk=user.pk).update(is_staff=True, is_superuser=True)
    mind, issued = mind_create(owner=user, name=DEMO_MIND_NAME, description="Created by make run.", key_label="demo")
    return DemoAccount(email=DEMO_EMAIL, password=password, mind=mind, key=issued)
