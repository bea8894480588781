"""Accounts, minds, keys and shares: the human side of the API.

Every view here except register/login/refresh/logout refuses Mind Keys (403, `IsHuman`). A mind the
caller cannot see answers 404; one they see with too little access answers 403. Views
authorize first (so an outsider learns nothing from a validation error), then validate, call
one service or selector, and serialize.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoryproject.core.pagination import LimitOffsetPaging, page_response
from memoryproject.core.schema import error_responses
from minds.access import Access, mind_get_for
from minds.api.serializers import (
    LoginInputSerializer,
    LogoutInputSerializer,
    MindCreatedSerializer,
    MindCreateInputSerializer,
    MindKeyIssuedSerializer,
    MindKeyIssueInputSerializer,
    MindKeySerializer,
    MindSerializer,
    MindShareCreateInputSerializer,
    MindShareSerializer,
    MindShareUpdateInputSerializer,
    MindUpdateInputSerializer,
    RegisteredSerializer,
    RegisterInputSerializer,
    TokenPairSerializer,
    TokenRefreshInputSerializer,
)
from minds.api.tokens import tokens_refresh, tokens_revoke, user_login, user_tokens_issue
from minds.authentication import BEARER_CHALLENGE
from minds.login_policy import Refusal, login_attempt
from minds.permissions import IsHuman
from minds.selectors import (
    mind_key_get,
    mind_keys_list,
    mind_share_get,
    mind_shares_list,
    minds_list,
    minds_shared_list,
)
from minds.services import (
    LOGIN_FAILED,
    mind_create,
    mind_delete,
    mind_key_issue,
    mind_key_revoke,
    mind_share_create,
    mind_share_delete,
    mind_share_update,
    mind_update,
    user_for_credentials,
    user_register,
)
from minds.throttling import RegisterIPRateThrottle, client_address

ACCOUNTS_TAG = ["accounts"]
MINDS_TAG = ["minds"]
# Errors every human endpoint on a mind can answer.
MIND_ERRORS = (401, 403, 404)


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


# --- Accounts -------------------------------------------------------------------------------


class _AnonymousView(APIView):
    """No credentials needed (and none looked at)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get_authenticate_header(self, request) -> str:
        # A wrong password or token is a 401; DRF makes it 403 when no challenge is named.
        return BEARER_CHALLENGE


class RegisterView(_AnonymousView):
    throttle_classes = [RegisterIPRateThrottle]

    @extend_schema(
        tags=ACCOUNTS_TAG,
        auth=[],
        request=RegisterInputSerializer,
        responses={201: RegisteredSerializer, **error_responses(400)},
    )
    def post(self, request):
        """Create an account; the answer carries a JWT pair, so no separate login is needed."""
        data = _valid(RegisterInputSerializer, request)
        user = user_register(email=data["email"], password=data["password"])
        tokens = user_tokens_issue(user=user)
        body = {"user": user, "access": tokens.access, "refresh": tokens.refresh}
        return Response(RegisteredSerializer(body).data, status=201)


class LoginView(_AnonymousView):
    @extend_schema(
        tags=ACCOUNTS_TAG,
        auth=[],
        request=LoginInputSerializer,
        responses={200: TokenPairSerializer, **error_responses(400, 401, 429)},
    )
    def post(self, request):
        """A JWT pair for email and password, under the login policy shared with the UI and the admin:
        429 with Retry-After once this address is locked out of the account or the account's delay runs."""
        data = _valid(LoginInputSerializer, request)
        outcome = login_attempt(
            email=data["email"],
            address=client_address(request),
            check=lambda: user_for_credentials(email=data["email"], password=data["password"]),
        )
        if isinstance(outcome, Refusal):
            refused = exceptions.Throttled(detail=outcome.message)
            refused.wait = outcome.seconds  # the Retry-After header; the message says it in words
            raise refused
        if outcome is None:
            raise exceptions.AuthenticationFailed(LOGIN_FAILED)
        return Response(TokenPairSerializer(user_login(user=outcome)).data)


class TokenRefreshView(_AnonymousView):
    @extend_schema(
        tags=ACCOUNTS_TAG,
        auth=[],
        request=TokenRefreshInputSerializer,
        responses={200: TokenPairSerializer, **error_responses(400, 401)},
    )
    def post(self, request):
        """A new pair for a refresh token, which is revoked (rotated): each refresh token works once."""
        data = _valid(TokenRefreshInputSerializer, request)
        return Response(TokenPairSerializer(tokens_refresh(refresh=data["refresh"])).data)


class LogoutView(_AnonymousView):
    @extend_schema(
        tags=ACCOUNTS_TAG,
        auth=[],
        request=LogoutInputSerializer,
        responses={204: None, **error_responses(400, 401)},
    )
    def post(self, request):
        """Revoke a login: its refresh token and every access token minted from it answer 401 from now
        on. Other logins of the account, and Mind Keys, stay valid."""
        data = _valid(LogoutInputSerializer, request)
        tokens_revoke(refresh=data["refresh"])
        return Response(status=204)


# --- Minds ----------------------------------------------------------------------------------


class _HumanView(APIView):
    permission_classes = [IsHuman]


class MindCollectionView(_HumanView):
    pagination_class = LimitOffsetPaging

    @extend_schema(tags=MINDS_TAG, responses={200: MindSerializer(many=True), **error_responses(400, 401, 403)})
    def get(self, request):
        """Minds you own or that are shared with you, each with your access level."""
        return page_response(self, minds_list(user=request.user), MindSerializer)

    @extend_schema(
        tags=MINDS_TAG,
        request=MindCreateInputSerializer,
        responses={201: MindCreatedSerializer, **error_responses(400, 401, 403)},
    )
    def post(self, request):
        """Create a mind. The answer holds its first Mind Key in plain text, shown only this once."""
        data = _valid(MindCreateInputSerializer, request)
        mind, issued = mind_create(owner=request.user, name=data["name"], description=data.get("description", ""))
        return Response(MindCreatedSerializer(mind, context={"mind_key": issued.plaintext}).data, status=201)


class MindSharedListView(_HumanView):
    pagination_class = LimitOffsetPaging

    @extend_schema(tags=MINDS_TAG, responses={200: MindSerializer(many=True), **error_responses(400, 401, 403)})
    def get(self, request):
        """Minds other people shared with you."""
        return page_response(self, minds_shared_list(user=request.user), MindSerializer)


class MindDetailView(_HumanView):
    @extend_schema(tags=MINDS_TAG, responses={200: MindSerializer, **error_responses(*MIND_ERRORS)})
    def get(self, request, mind_id: str):
        """One mind (any access)."""
        return Response(MindSerializer(mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)[0]).data)

    @extend_schema(
        tags=MINDS_TAG,
        request=MindUpdateInputSerializer,
        responses={200: MindSerializer, **error_responses(400, *MIND_ERRORS)},
    )
    def patch(self, request, mind_id: str):
        """Rename or re-describe a mind (owner or admin share)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        data = _valid(MindUpdateInputSerializer, request)
        return Response(MindSerializer(mind_update(mind=mind, **data)).data)

    @extend_schema(tags=MINDS_TAG, responses={204: None, **error_responses(*MIND_ERRORS)})
    def delete(self, request, mind_id: str):
        """Delete a mind and everything of it (owner only)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.OWNER)[0]
        mind_delete(mind=mind)
        return Response(status=204)


# --- Keys -----------------------------------------------------------------------------------


class MindKeyCollectionView(_HumanView):
    pagination_class = LimitOffsetPaging

    @extend_schema(tags=MINDS_TAG, responses={200: MindKeySerializer(many=True), **error_responses(400, *MIND_ERRORS)})
    def get(self, request, mind_id: str):
        """The mind's keys, revoked ones included; never a secret (owner or admin share)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        return page_response(self, mind_keys_list(mind=mind), MindKeySerializer)

    @extend_schema(
        tags=MINDS_TAG,
        request=MindKeyIssueInputSerializer,
        responses={201: MindKeyIssuedSerializer, **error_responses(400, *MIND_ERRORS)},
    )
    def post(self, request, mind_id: str):
        """Issue a key; its plain text is in this answer only (owner or admin share)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        data = _valid(MindKeyIssueInputSerializer, request)
        issued = mind_key_issue(mind=mind, label=data.get("label", ""))
        return Response(MindKeyIssuedSerializer(issued).data, status=201)


class MindKeyDetailView(_HumanView):
    @extend_schema(tags=MINDS_TAG, responses={204: None, **error_responses(*MIND_ERRORS)})
    def delete(self, request, mind_id: str, key_id: int):
        """Revoke a key: it answers 401 from now on (owner or admin share)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        mind_key_revoke(key=mind_key_get(mind=mind, key_id=key_id))
        return Response(status=204)


# --- Shares ---------------------------------------------------------------------------------


class MindShareCreateView(_HumanView):
    @extend_schema(
        tags=MINDS_TAG,
        request=MindShareCreateInputSerializer,
        responses={201: MindShareSerializer, **error_responses(400, *MIND_ERRORS, 409)},
    )
    def post(self, request, mind_id: str):
        """Share the mind with another account (owner or admin share). An existing share is a 409."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        data = _valid(MindShareCreateInputSerializer, request)
        share = mind_share_create(mind=mind, user_email=data["user_email"], acl=data["acl"])
        return Response(MindShareSerializer(share).data, status=201)


class MindShareCollectionView(_HumanView):
    pagination_class = LimitOffsetPaging

    @extend_schema(
        tags=MINDS_TAG, responses={200: MindShareSerializer(many=True), **error_responses(400, *MIND_ERRORS)}
    )
    def get(self, request, mind_id: str):
        """Who the mind is shared with (owner or admin share)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        return page_response(self, mind_shares_list(mind=mind), MindShareSerializer)


class MindShareDetailView(_HumanView):
    @extend_schema(
        tags=MINDS_TAG,
        request=MindShareUpdateInputSerializer,
        responses={200: MindShareSerializer, **error_responses(400, *MIND_ERRORS)},
    )
    def put(self, request, mind_id: str, share_id: int):
        """Change a share's access level (owner or admin share)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        share = mind_share_get(mind=mind, share_id=share_id)
        data = _valid(MindShareUpdateInputSerializer, request)
        return Response(MindShareSerializer(mind_share_update(share=share, acl=data["acl"])).data)

    @extend_schema(tags=MINDS_TAG, responses={204: None, **error_responses(*MIND_ERRORS)})
    def delete(self, request, mind_id: str, share_id: int):
        """Stop sharing (owner or admin share)."""
        mind = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)[0]
        mind_share_delete(share=mind_share_get(mind=mind, share_id=share_id))
        return Response(status=204)
