"""What minds does when an account changes: a new password or a deactivation revokes every JWT
of the account (its token epoch is bumped), wherever it was changed — the UI, the admin,
`manage.py changepassword`. Mind Keys are the agents' credentials and stay valid."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from minds.services import token_epoch_bump

User = get_user_model()
# The fields whose change revokes the account's tokens.
_CREDENTIAL_FIELDS = {"password", "is_active"}


@receiver(pre_save, sender=User, dispatch_uid="minds.tokens_revoked_mark")
def _credentials_changing(sender, instance, raw: bool = False, update_fields=None, **kwargs) -> None:
    instance._synapse_revoke_tokens = False
    if raw or instance.pk is None:
        return
    if update_fields is not None and not _CREDENTIAL_FIELDS & set(update_fields):
        return  # e.g. update_last_login: no need to read the row
    before = User.objects.filter(pk=instance.pk).values("password", "is_active").first()
    if before is None:
        return
    deactivated = before["is_active"] and not instance.is_active
    instance._synapse_revoke_tokens = deactivated or _password_changed(instance, before["password"])


def _password_changed(user, hash_before: str) -> bool:
    """A new password (set_password, set_unusable_password), not Django rehashing the same one at
    login with more iterations: that saves a new hash too, but clears `_password` first."""
    if user.password == hash_before:
        return False
    rehashed = getattr(user, "_password", None) is None and user.has_usable_password()
    return not rehashed


@receiver(post_save, sender=User, dispatch_uid="minds.tokens_revoked")
def _credentials_changed(sender, instance, created: bool = False, raw: bool = False, **kwargs) -> None:
    if getattr(instance, "_synapse_revoke_tokens", False):
        instance._synapse_revoke_tokens = False
        token_epoch_bump(user_id=instance.pk)
