"""Minds, their keys and the shares that grant other users access to them."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from memoryproject.core.public_ids import new_mind_id


class Mind(models.Model):
    """One agent's memory space, owned by a user and shareable with others."""

    id = models.CharField(primary_key=True, max_length=40, default=new_mind_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="minds")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    # Per-mind overrides of synapse-model constants and modes (see docs/synapse-model.md).
    settings = models.JSONField(default=dict, blank=True)
    # The embedder (`embedding_model` name) whose vectors the mind's memories carry; empty until
    # its first vector. A server with another embedder refuses to mix its vectors in, and says to
    # run `manage.py reembed` (memories/embedders/installation.py, docs/embeddings.md).
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["owner", "created_at"], name="mind_owner_created_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.id})"


class MindKey(models.Model):
    """An agent credential for one mind. Only an HMAC-SHA256 digest of the secret is stored."""

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="keys")
    label = models.CharField(max_length=100, blank=True, default="")
    # The public start of the key (`mk_` + 8 characters): shown in lists, used for lookup.
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.label or 'no label'})"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None


SHARE_WITH_OWNER = "This is the mind's owner, who already has full access."


class ShareAccess(models.TextChoices):
    READ = "read", "read"
    WRITE = "write", "write"
    ADMIN = "admin", "admin"


class MindShare(models.Model):
    """Access to a mind granted by its owner to another user."""

    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="shares")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mind_shares")
    acl = models.CharField(max_length=5, choices=ShareAccess.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["mind", "user"], name="mindshare_unique_mind_user")]

    def __str__(self) -> str:
        return f"{self.user} → {self.mind_id} ({self.acl})"

    def clean(self) -> None:
        if self.mind_id is not None and self.user_id is not None and self.mind.owner_id == self.user_id:
            raise ValidationError({"user": [SHARE_WITH_OWNER]})


# --- Revocable tokens (minds/api/tokens.py; docs/api-accounts.md → Tokens) -------------------


class TokenEpoch(models.Model):
    """A person's token epoch. Every JWT carries the epoch it was minted in; a password change or
    the account's deactivation bumps it, and every older token (refresh or access) answers 401.
    No row: epoch 0 (tokens from before this table carry none, which counts as 0)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="token_epoch"
    )
    epoch = models.PositiveIntegerField(default=0)
    bumped_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user} @ {self.epoch}"


class RevokedSession(models.Model):
    """One login's tokens revoked by `POST /logout`. Every token of a login — its refresh tokens
    through each rotation and the access tokens they minted — carries the login's session id
    (`sid`); a request whose token names a row here answers 401. The row can go once the login's
    last refresh token has expired (`expires_at`): every token of it has expired by then."""

    sid = models.CharField(primary_key=True, max_length=32)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="revoked_sessions")
    revoked_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.user} {self.sid}"
