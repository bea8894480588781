"""The Django admin for the long-term net: knots, edges, entities, goals and promotion attempts.

The net is written by promotion, use and decay, so nothing here can be added or edited field by
field. What a superuser may do goes through the services, with their rules: deactivate knots
(out of recall and the picture until used again), merge entities (Trigger 3 keeps the edges
right), switch goals off, and delete a parked promotion attempt, which un-parks the memory so
the next sweep tries it again (after whatever made it fail was fixed).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from memoryproject.core.domain import Conflict, ValidationFailed
from synapses.constants import LAYERS
from synapses.models import DecayRun, Edge, Entity, Goal, Knot, PromotionAttempt
from synapses.net.presence import knots_deactivate
from synapses.resonance.goals import goal_update
from synapses.upkeep.entities import entity_merge


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_curate_permission(self, request: HttpRequest) -> bool:
        """The actions change the net through its services: superusers only."""
        return request.user.is_superuser


def _exact_ids(term: str) -> list[int]:
    """The whole numbers of a search term that fit a bigint (an id search never errors on text)."""
    return [int(word) for word in term.split() if word.isdigit() and len(word) <= 18]


@admin.register(DecayRun)
class DecayRunAdmin(ReadOnlyAdmin):
    list_display = ["ran_at", "knots_decayed", "knots_deactivated", "rate", "min_weight"]
    date_hierarchy = "ran_at"
    ordering = ["-ran_at"]


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
    list_display = ["id", "mind", "memory_id", "category", "weight_anchor", "present", "active", "created_at"]
    list_select_related = ["mind", "presence"]
    list_filter = ["category", "observer", "presence__is_active"]
    search_fields = ["=id", "memory__id", "mind__id", "content"]
    exclude = ["embedding", "search_vector"]
    ordering = ["-created_at"]
    actions = ["deactivate_selected"]

    @admin.display(description="presence", ordering="presence__weight_present")
    def present(self, knot: Knot) -> str:
        return f"{knot.presence.weight_present:.4f}"

    @admin.display(description="active", boolean=True, ordering="presence__is_active")
    def active(self, knot: Knot) -> bool:
        return knot.presence.is_active

    @admin.action(description="Deactivate selected knots (out of recall until used again)", permissions=["curate"])
    def deactivate_selected(self, request: HttpRequest, queryset: QuerySet[Knot]) -> None:
        done = knots_deactivate(knot_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{done} knot{'s' if done != 1 else ''} deactivated.", messages.SUCCESS)


class EdgeLayerFilter(admin.SimpleListFilter):
    """Edges that fire a layer (the array contains it)."""

    title = "layer"
    parameter_name = "layers"

    def lookups(self, request, model_admin):
        return [(layer, layer) for layer in LAYERS]

    def queryset(self, request, queryset):
        return queryset.filter(layers__contains=[self.value()]) if self.value() else queryset


@admin.register(Edge)
class EdgeAdmin(ReadOnlyAdmin):
    list_display = ["id", "mind", "source_id", "target_id", "weight_anchor", "layers", "layer_count", "created_at"]
    list_select_related = ["mind"]
    list_filter = [EdgeLayerFilter, "layer_count"]
    search_fields = ["=source__id", "=target__id"]
    search_help_text = "A knot id: the edges from or to it."
    ordering = ["-created_at", "-id"]
    show_full_result_count = False  # a net has millions of edges: no count on every page view

    def get_search_results(self, request, queryset, search_term: str):
        term = search_term.strip()
        if not term:
            return queryset, False
        ids = _exact_ids(term)
        return queryset.filter(source_id__in=ids) | queryset.filter(target_id__in=ids), False


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    list_display = ["name", "aliases", "mind", "created_at"]
    list_select_related = ["mind"]
    list_filter = ["mind"]
    search_fields = ["name", "mind__id"]
    ordering = ["name"]
    actions = ["merge_selected"]

    @admin.action(description="Merge selected entities into the oldest one (cannot be undone)", permissions=["curate"])
    def merge_selected(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        chosen = list(queryset.order_by("created_at", "id"))
        if len(chosen) < 2 or len({entity.mind_id for entity in chosen}) != 1:
            self.message_user(request, "Select two or more entities of one mind to merge.", messages.ERROR)
            return
        into, *others = chosen
        for entity in others:
            try:
                into = entity_merge(entity=entity, into=into).entity
            except (ValidationFailed, Conflict) as error:
                problems = "; ".join(" ".join(map(str, texts)) for texts in error.fields.values()) or error.message
                self.message_user(request, f"{entity.name} was not merged: {problems}", messages.ERROR)
                return
        names = ", ".join(entity.name for entity in others)
        self.message_user(request, f"Merged {names} into {into.name}.", messages.SUCCESS)


@admin.register(Goal)
class GoalAdmin(ReadOnlyAdmin):
    list_display = ["statement", "mind", "motivation", "active", "updated_at"]
    list_select_related = ["mind"]
    list_filter = ["active"]
    search_fields = ["statement", "mind__id"]
    exclude = ["embedding"]
    ordering = ["-motivation", "id"]
    actions = ["switch_off_selected"]

    @admin.action(description="Switch selected goals off (they stop bending recall)", permissions=["curate"])
    def switch_off_selected(self, request: HttpRequest, queryset: QuerySet[Goal]) -> None:
        goals = list(queryset.filter(active=True))
        for goal in goals:
            goal_update(goal=goal, active=False)
        self.message_user(request, f"{len(goals)} goal{'s' if len(goals) != 1 else ''} switched off.", messages.SUCCESS)
