"""The Django admin for webhooks: the hooks (enable or disable one; the secret is never shown)
and their delivery log, read-only (attempts are written by the worker, never by hand)."""

from __future__ import annotations

from django.contrib import admin

from webhooks.models import Webhook, WebhookDelivery


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ["id", "mind", "url", "events", "enabled", "disabled_reason", "created_at"]
    list_select_related = ["mind"]
    list_filter = ["enabled", "events"]
    search_fields = ["id", "mind__id", "url"]
    ordering = ["-created_at"]
    # The secret signs every delivery: it is not shown, and url/events go through the API's checks.
    fields = ["id", "mind", "url", "events", "enabled", "disabled_reason", "created_at", "updated_at"]
    readonly_fields = ["id", "mind", "url", "events", "disabled_reason", "created_at", "updated_at"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["created_at", "webhook", "event", "attempt", "status", "response_code", "duration_ms", "error"]
    list_select_related = ["webhook"]
    list_filter = ["status", "event"]
    search_fields = ["webhook__id", "webhook__mind__id", "delivery_id", "error"]
    ordering = ["-created_at"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
