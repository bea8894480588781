"""JSON Web Tokens for people (simplejwt): issued at registration and login, rotated at each
refresh, revoked by `POST /logout`, by a password change and by a deactivation.

Every token of one login carries the login's session id (`sid`, kept through rotations) and the
account's token epoch (`epoch`). A request is refused, with a message naming the case, when its
token has expired, is of the other type, was rotated or logged out (`sid` in RevokedSession, or
the refresh token in simplejwt's blacklist) or is older than the account's epoch.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import update_last_login
from django.db import transaction
from django.db.models import Exists, OuterRef
from rest_framework import exceptions
from rest_framework_simplejwt.exceptions import ExpiredTokenError, TokenError
from rest_framework_simplejwt.settings import api_settings as jwt_settings
from rest_framework_simplejwt.tokens import AccessToken, BlacklistMixin, RefreshToken, Token, UntypedToken
from rest_framework_simplejwt.utils import datetime_from_epoch

from minds.models import RevokedSession, TokenEpoch
from minds.services import session_revoke

User = get_user_model()

EPOCH_CLAIM = "epoch"
SESSION_CLAIM = "sid"

ACCESS_EXPIRED = "The access token has expired — use POST /token/refresh with the refresh token for a new one."
REFRESH_EXPIRED = "The refresh token has expired; log in again with POST /login."
WRONG_TYPE_FOR_ACCESS = (
    "This is not an access token: send the `access` token of POST /login or POST /token/refresh; "
    "the refresh token goes to POST /token/refresh only."
)
WRONG_TYPE_FOR_REFRESH = "This is not a refresh token: send the `refresh` token of POST /login or POST /token/refresh."
UNREADABLE = "The token is not valid: it is malformed or was not signed by this server."
ROTATED = (
    "The refresh token was revoked: it was already used (each POST /token/refresh answers a new one) "
    "or logged out. Use the latest refresh token, or log in again."
)
LOGGED_OUT = "The token was revoked by POST /logout; log in again."
EPOCH_PASSED = "The token was revoked: the account's password changed or it was deactivated; log in again."
ACCOUNT_GONE = "The account of this token no longer exists or is disabled."

# The error codes of the cases (the JSON's `error.code`).
CODE_EXPIRED = "token_expired"
CODE_REVOKED = "token_revoked"
CODE_WRONG_TYPE = "token_wrong_type"
CODE_INVALID = "authentication_failed"


@dataclass(frozen=True)
class TokenPair:
    access: str
    refresh: str


def _refused(message: str, code: str) -> exceptions.AuthenticationFailed:
    return exceptions.AuthenticationFailed(message, code=code)


def token_decoded(raw: str | bytes, token_class: type[Token]) -> Token:
    """The verified token, or AuthenticationFailed naming why not: expired, not of `token_class`'s
    type, revoked (a rotated or logged-out refresh token), or not valid at all."""
    expired = ACCESS_EXPIRED if token_class is AccessToken else REFRESH_EXPIRED
    wrong_type = WRONG_TYPE_FOR_ACCESS if token_class is AccessToken else WRONG_TYPE_FOR_REFRESH
    try:
        return token_class(raw)  # one decode for a good token; a refresh token also checks the blacklist
    except TokenError:
        pass
    # Refused: decoded again, whatever the type, only to say why.
    try:
        untyped = UntypedToken(raw)
    except ExpiredTokenError:
        raise _refused(expired, CODE_EXPIRED) from None
    except TokenError:
        raise _refused(UNREADABLE, CODE_INVALID) from None
    if untyped.get(jwt_settings.TOKEN_TYPE_CLAIM) != token_class.token_type:
        raise _refused(wrong_type, CODE_WRONG_TYPE)
    raise _refused(ROTATED, CODE_REVOKED)


def token_user(token: Token):
    """The active account of a verified token, refused when the token was revoked since."""
    user_id = token.get(jwt_settings.USER_ID_CLAIM)
    sid = token.get(SESSION_CLAIM)
    user = (
        User.objects.select_related("token_epoch")
        .annotate(session_revoked=Exists(RevokedSession.objects.filter(sid=sid or "", user=OuterRef("pk"))))
        .filter(**{jwt_settings.USER_ID_FIELD: user_id})
        .first()
        if user_id is not None
        else None
    )
    if user is None:
        raise _refused(ACCOUNT_GONE, CODE_INVALID)
    if token.get(EPOCH_CLAIM, 0) != _epoch(user):
        raise _refused(EPOCH_PASSED, CODE_REVOKED)
    if user.session_revoked:
        raise _refused(LOGGED_OUT, CODE_REVOKED)
    if not jwt_settings.USER_AUTHENTICATION_RULE(user):
        raise _refused(ACCOUNT_GONE, CODE_INVALID)
    return user


def _epoch(user) -> int:
    try:
        return user.token_epoch.epoch
    except TokenEpoch.DoesNotExist:
        return 0


def _pair(user, *, sid: str) -> TokenPair:
    # RefreshToken.for_user without the blacklist mixin's part (Token.for_user: the user's claims),
    # so the login's claims are in before the token is recorded as outstanding (the record a
    # blacklisting points at, and what the admin lists).
    refresh = super(BlacklistMixin, RefreshToken).for_user(user)
    refresh[EPOCH_CLAIM] = _epoch(user)
    refresh[SESSION_CLAIM] = sid
    refresh.outstand()
    return TokenPair(access=str(refresh.access_token), refresh=str(refresh))


def user_tokens_issue(*, user) -> TokenPair:
    """A fresh JWT pair for `user`: a new login, with a session id of its own."""
    return _pair(user, sid=uuid.uuid4().hex)


def user_login(*, user) -> TokenPair:
    """The pair of a login whose password the login policy has accepted."""
    if jwt_settings.UPDATE_LAST_LOGIN:
        update_last_login(None, user)
    return user_tokens_issue(user=user)


def tokens_refresh(*, refresh: str) -> TokenPair:
    """A new pair for a refresh token, which is blacklisted (rotated): it works once.

    Raises AuthenticationFailed (401) naming the case otherwise. (simplejwt's own serializer
    answers 500 when the account was deleted; hence our own.)
    """
    token = token_decoded(refresh, RefreshToken)
    user = token_user(token)
    with transaction.atomic():
        _, blacklisted_now = token.blacklist()
        if not blacklisted_now:  # a concurrent refresh with the same token won
            raise _refused(ROTATED, CODE_REVOKED)
        return _pair(user, sid=token.get(SESSION_CLAIM) or uuid.uuid4().hex)


def tokens_revoke(*, refresh: str) -> None:
    """`POST /logout`: the refresh token, and every token of its login (access tokens included)."""
    token = token_decoded(refresh, RefreshToken)
    user = token_user(token)
    with transaction.atomic():
        token.blacklist()
        sid = token.get(SESSION_CLAIM)
        if sid:
            session_revoke(user=user, sid=sid, expires_at=datetime_from_epoch(token["exp"]))
