"""JSON Web Tokens for people: issued at registration and login, refreshed on request (simplejwt)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import update_last_login
from rest_framework_simplejwt.exceptions import InvalidToken, TokenError
from rest_framework_simplejwt.settings import api_settings as jwt_settings
from rest_framework_simplejwt.tokens import RefreshToken

from minds.services import user_authenticate

User = get_user_model()


@dataclass(frozen=True)
class TokenPair:
    access: str
    refresh: str


def user_tokens_issue(*, user) -> TokenPair:
    """A fresh JWT pair for `user`."""
    refresh = RefreshToken.for_user(user)
    return TokenPair(access=str(refresh.access_token), refresh=str(refresh))


def user_login(*, email: str, password: str) -> TokenPair:
    """Check the password and issue a JWT pair; AuthenticationFailed (401) when wrong or inactive."""
    user = user_authenticate(email=email, password=password)
    if jwt_settings.UPDATE_LAST_LOGIN:
        update_last_login(None, user)
    return user_tokens_issue(user=user)


def access_token_refresh(*, refresh: str) -> str:
    """A new access token from a refresh token, for an account that still exists and is active.

    Raises InvalidToken (401) otherwise. (simplejwt's own serializer answers 500 when the
    account was deleted; hence our own.)
    """
    try:
        token = RefreshToken(refresh)
    except TokenError as error:
        raise InvalidToken(str(error)) from None
    user_id = token.payload.get(jwt_settings.USER_ID_CLAIM)
    user = User.objects.filter(**{jwt_settings.USER_ID_FIELD: user_id}).first() if user_id is not None else None
    if user is None or not jwt_settings.USER_AUTHENTICATION_RULE(user):
        raise InvalidToken("The account of this token no longer exists or is disabled.")
    return str(token.access_token)
