"""Routes of the webhook API (docs/webhooks.md), included from memoryproject/urls.py."""

from django.urls import register_converter

from memoryproject.core.routing import route
from webhooks.api import views


class WebhookIdConverter:
    """A webhook id in a path: `wh_` and 1–36 url-safe characters, passed through unchanged."""

    regex = r"wh_[A-Za-z0-9_-]{1,36}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(WebhookIdConverter, "webhook_id")

urlpatterns = [
    *route("webhooks", views.WebhookCollectionView.as_view(), name="webhooks"),
    *route("webhooks/<webhook_id:webhook_id>", views.WebhookDetailView.as_view(), name="webhook"),
    *route("webhooks/<webhook_id:webhook_id>/test", views.WebhookTestView.as_view(), name="webhook-test"),
]
