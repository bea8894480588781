"""The Django admin for the long-term net: read-only views of knots, entities and promotion attempts.

The net is written by promotion, use and decay, never by hand, so nothing here can be added or
changed. A parked promotion attempt may be deleted: that un-parks the memory, and the next sweep
tries it again (after whatever made it fail was fixed).
"""

from __future__ import annotations

from django.contrib import admin

from synapses.models import Entity, Knot, PromotionAttempt


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PromotionAttempt)
class PromotionAttemptAdmin(ReadOnlyAdmin):
    list_display = ["memory_id", "mind", "attempts", "parked_at", "updated_at", "last_error"]
    list_select_related = ["mind"]
    list_filter = [("parked_at", admin.EmptyFieldListFilter)]
    search_fields = ["memory__id", "mind__id", "last_error"]
    ordering = ["-updated_at"]

    def has_delete_permission(self, request, obj=None) -> bool:
        # Deleting the row is how a human sends a parked memory back to the sweeps.
        return request.user.is_superuser


@admin.register(Knot)
class KnotAdmin(ReadOnlyAdmin):
    list_display = ["id", "mind", "memory_id", "category", "weight_anchor", "activation_count", "created_at"]
    list_select_related = ["mind"]
    list_filter = ["category", "observer"]
    search_fields = ["=id", "memory__id", "mind__id", "content"]
    exclude = ["embedding", "search_vector"]
    ordering = ["-created_at"]


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    list_display = ["name", "aliases", "mind", "created_at"]
    list_select_related = ["mind"]
    search_fields = ["name", "mind__id"]
    ordering = ["name"]
