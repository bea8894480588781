"""The webhook endpoints (docs/webhooks.md): list, create, read, replace, delete, test.

Thin views in the project's order of checks: authorize (a mind or hook the caller cannot see is
a 404), validate the parameters and the body, call one service or selector, serialize. A Mind
Key acts on its own mind; a human names the mind (`?mind=`, `X-Mind`) and needs write access.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoryproject.core.api.params import no_query_params
from minds.access import Access
from minds.api.request_mind import mind_from_request
from webhooks.api.serializers import (
    WebhookCreatedSerializer,
    WebhookInputSerializer,
    WebhookReplaceSerializer,
    WebhookSerializer,
    WebhookTestResultSerializer,
)
from webhooks.models import DeliveryStatus
from webhooks.selectors import webhook_get, webhooks_list
from webhooks.services.delivery import webhook_test
from webhooks.services.hooks import webhook_create, webhook_delete, webhook_update

WEBHOOKS_TAG = ["webhooks"]


def _body(serializer_class, request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class WebhookCollectionView(APIView):
    @extend_schema(tags=WEBHOOKS_TAG, responses={200: WebhookSerializer(many=True)})
    def get(self, request):
        """The mind's webhooks, oldest first (their secrets are never shown again)."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        no_query_params(request)
        return Response(WebhookSerializer(webhooks_list(mind_id=mind.pk), many=True).data)

    @extend_schema(
        tags=WEBHOOKS_TAG,
        request=WebhookInputSerializer,
        responses={201: WebhookCreatedSerializer},
    )
    def post(self, request):
        """A new webhook `{url, events, secret?, enabled}`; the answer shows its secret, once."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        no_query_params(request)
        created = webhook_create(mind_id=mind.pk, **_body(WebhookInputSerializer, request))
        data = {**WebhookSerializer(created.webhook).data, "secret": created.secret}
        return Response(data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    @extend_schema(tags=WEBHOOKS_TAG, responses={200: WebhookSerializer})
    def get(self, request, webhook_id: str):
        """One webhook."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        webhook = webhook_get(mind_id=mind.pk, webhook_id=webhook_id)
        no_query_params(request)
        return Response(WebhookSerializer(webhook).data)

    @extend_schema(
        tags=WEBHOOKS_TAG,
        request=WebhookReplaceSerializer,
        responses={200: WebhookSerializer},
    )
    def put(self, request, webhook_id: str):
        """Replace url, events and enabled; a given secret replaces the old one. Enabling clears `disabled_reason`."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        webhook = webhook_get(mind_id=mind.pk, webhook_id=webhook_id)
        no_query_params(request)
        webhook = webhook_update(webhook=webhook, **_body(WebhookReplaceSerializer, request))
        return Response(WebhookSerializer(webhook).data)

    @extend_schema(tags=WEBHOOKS_TAG, responses={204: None})
    def delete(self, request, webhook_id: str):
        """Delete the webhook and its delivery log."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        webhook = webhook_get(mind_id=mind.pk, webhook_id=webhook_id)
        no_query_params(request)
        webhook_delete(webhook=webhook)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookTestView(APIView):
    @extend_schema(tags=WEBHOOKS_TAG, request=None, responses={200: WebhookTestResultSerializer})
    def post(self, request, webhook_id: str):
        """Send one signed `webhook.test` event now and answer how the receiver took it (no retries;
        at most the delivery timeout). A 410 disables the hook like any delivery's."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        webhook = webhook_get(mind_id=mind.pk, webhook_id=webhook_id)
        no_query_params(request)
        if request.data:
            raise ValidationError({"body": ["This endpoint takes no body."]})
        delivery = webhook_test(webhook=webhook)
        result = {
            "delivered": delivery.status == DeliveryStatus.SUCCEEDED,
            "event": delivery.event,
            "delivery_id": delivery.delivery_id,
            "status": delivery.status,
            "response_code": delivery.response_code,
            "duration_ms": delivery.duration_ms,
            "error": delivery.error,
        }
        return Response(WebhookTestResultSerializer(result).data)
