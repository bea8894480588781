"""Who is calling: an agent with a Mind Key, or a human with a JWT or a session."""

from __future__ import annotations

import hmac
from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.tokens import AccessToken

from minds.api.tokens import token_decoded, token_user
from minds.mindkeys import looks_like_mind_key, mind_key_digest, mind_key_prefix_of
from minds.models import Mind, MindKey
from minds.principals import AgentPrincipal
from minds.signals import mind_resolved

# `last_used_at` is written at most this often per key, so a busy agent costs no write per call.
KEY_LAST_USED_WRITE_INTERVAL = timedelta(minutes=1)


def _bearer_token(request) -> str | None:
    header = authentication.get_authorization_header(request).decode("latin-1")
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    return parts[1]


# The WWW-Authenticate challenge of a 401: a bearer token (Mind Key or JWT) for the realm "synapse".
BEARER_CHALLENGE = 'Bearer realm="synapse"'


class MindKeyAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer mk_…`. Other bearer tokens are left to the JWT class."""

    def authenticate(self, request):
        token = _bearer_token(request)
        if token is None or not looks_like_mind_key(token):
            return None
        prefix = mind_key_prefix_of(token)
        key = MindKey.objects.select_related("mind").filter(prefix=prefix).first() if prefix else None
        if key is None or not hmac.compare_digest(key.digest, mind_key_digest(token)):
            raise exceptions.AuthenticationFailed("The Mind Key is not valid.")
        if key.is_revoked:
            raise exceptions.AuthenticationFailed("The Mind Key was revoked; ask the mind's owner for a new one.")
        self._touch(key)
        # An agent's request belongs to its key's mind, whatever the endpoint: announced here, once
        # (the pipeline log stamps it on the request's span).
        mind_resolved.send(sender=Mind, mind=key.mind)
        return AgentPrincipal(key=key), key

    @staticmethod
    def _touch(key: MindKey) -> None:
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at >= KEY_LAST_USED_WRITE_INTERVAL:
            MindKey.objects.filter(pk=key.pk).update(last_used_at=now)
            key.last_used_at = now

    def authenticate_header(self, request) -> str:
        # Makes DRF answer 401 (not 403) to a missing credential.
        return BEARER_CHALLENGE


class HumanJWTAuthentication(JWTAuthentication):
    """simplejwt, but never for Mind Keys (the class before it decides those), and revocable: an
    access token of a logged-out login, or older than the account's token epoch, answers 401; each
    refusal names its case (minds.api.tokens)."""

    def authenticate(self, request):
        token = _bearer_token(request)
        if token is not None and looks_like_mind_key(token):
            return None
        return super().authenticate(request)

    def get_validated_token(self, raw_token):
        return token_decoded(raw_token, AccessToken)

    def get_user(self, validated_token):
        return token_user(validated_token)
