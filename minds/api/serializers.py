"""Shapes of the account, mind, key and share endpoints. They validate and shape; nothing else."""

from __future__ import annotations

from rest_framework import serializers

from memoryproject.core.api.fields import StrictCharField, StrictChoiceField, StrictEmailField
from memoryproject.core.api.strict import RejectUnknownFieldsMixin
from minds.access import Access
from minds.models import Mind, MindKey, MindShare, ShareAccess

# Longest password accepted: hashing megabytes of "password" on every login would be a cheap DoS.
PASSWORD_MAX_CHARS = 1024
# Django's username (which holds the email) is at most 150 characters.
EMAIL_MAX_CHARS = 150
# A mind's description is for people; a few pages at most.
MIND_DESCRIPTION_MAX_CHARS = 10_000
ACCESS_LEVELS = [level.label for level in sorted(Access, reverse=True)]


# --- Accounts -------------------------------------------------------------------------------


# Every body below refuses a field it does not declare and a value of the wrong JSON type with the
# 400 of the memory endpoints: {"name": 12345, "bogus": 1} is told, not stored as "12345".


class RegisterInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    email = StrictEmailField(max_length=EMAIL_MAX_CHARS)
    password = StrictCharField(max_length=PASSWORD_MAX_CHARS, trim_whitespace=False)


class LoginInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    # Not an EmailField: a wrong login is a 401, whatever was typed.
    email = StrictCharField(max_length=EMAIL_MAX_CHARS)
    password = StrictCharField(max_length=PASSWORD_MAX_CHARS, trim_whitespace=False)


class TokenRefreshInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    refresh = StrictCharField(
        help_text="The latest refresh token from /login, /register or /token/refresh (each works once)."
    )


class LogoutInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    refresh = StrictCharField(help_text="The login's latest refresh token; it and its access tokens are revoked.")


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    email = serializers.EmailField()


class TokenPairSerializer(serializers.Serializer):
    access = serializers.CharField(help_text="JWT for `Authorization: Bearer …`; short-lived.")
    refresh = serializers.CharField(help_text="Exchange once at /token/refresh for a new pair; revoke at /logout.")


class RegisteredSerializer(TokenPairSerializer):
    user = UserSerializer()


# --- Minds ----------------------------------------------------------------------------------


class MindSerializer(serializers.ModelSerializer):
    owner_email = serializers.EmailField(source="owner.email")
    access = serializers.ChoiceField(choices=ACCESS_LEVELS, help_text="Your level on this mind.")

    class Meta:
        model = Mind
        fields = ["id", "name", "description", "owner_email", "access", "created_at", "updated_at"]
        read_only_fields = fields


class MindCreatedSerializer(MindSerializer):
    """A new mind; the view passes the first key's plaintext as context `mind_key`."""

    access = serializers.SerializerMethodField(help_text="Always `owner`: you created it.")
    mind_key = serializers.SerializerMethodField(help_text="The first Mind Key in plain text. Shown only this once.")

    class Meta(MindSerializer.Meta):
        fields = [*MindSerializer.Meta.fields, "mind_key"]
        read_only_fields = fields

    def get_access(self, mind: Mind) -> str:
        return Access.OWNER.label

    def get_mind_key(self, mind: Mind) -> str:
        return self.context["mind_key"]


class MindCreateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    name = StrictCharField(max_length=200)
    description = StrictCharField(max_length=MIND_DESCRIPTION_MAX_CHARS, allow_blank=True, required=False)


class MindUpdateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    name = StrictCharField(max_length=200, required=False)
    description = StrictCharField(max_length=MIND_DESCRIPTION_MAX_CHARS, allow_blank=True, required=False)


# --- Keys -----------------------------------------------------------------------------------


class MindKeySerializer(serializers.ModelSerializer):
    """A key as listed: never its secret or digest."""

    class Meta:
        model = MindKey
        fields = ["id", "label", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class MindKeyIssuedSerializer(serializers.Serializer):
    """Shapes `services.accounts.IssuedKey`."""

    id = serializers.IntegerField(source="key.id")
    label = serializers.CharField(source="key.label")
    prefix = serializers.CharField(source="key.prefix")
    created_at = serializers.DateTimeField(source="key.created_at")
    mind_key = serializers.CharField(source="plaintext", help_text="The key in plain text. Shown only this once.")


class MindKeyIssueInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    label = StrictCharField(max_length=100, allow_blank=True, required=False, help_text="What uses the key.")


# --- Shares ---------------------------------------------------------------------------------


class MindShareSerializer(serializers.ModelSerializer):
    user_email = serializers.EmailField(source="user.email")

    class Meta:
        model = MindShare
        fields = ["id", "mind_id", "user_id", "user_email", "acl", "created_at", "updated_at"]
        read_only_fields = fields


class MindShareCreateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    user_email = StrictEmailField(max_length=EMAIL_MAX_CHARS, help_text="An account that exists.")
    acl = StrictChoiceField(ShareAccess.values)


class MindShareUpdateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    acl = StrictChoiceField(ShareAccess.values)
