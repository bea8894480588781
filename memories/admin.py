"""The Django admin for memories. Writes go through the services.

Minds, keys and shares are in `minds.admin`; users stay in Django's own admin
(django.contrib.auth).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from memories.models import Memory
from memories.selectors.knots import memories_knot_ids_attach
from memories.services.erasure import memory_delete
from memories.services.memory import memory_unverify, memory_update, memory_verify
from memories.services.validation import memory_fields_clean
from memoryproject.core.domain import ValidationFailed
from minds.access import caller_of

# --- Memories -------------------------------------------------------------------------------

# What a human may change here; the rest (provenance, event time, vectors) is shown read-only.
MEMORY_ADMIN_EDITABLE = ["category", "key", "content", "tags", "priority", "confidence", "salience", "expires_at"]


class MemoryAdminForm(forms.ModelForm):
    """The admin's memory form, checked by the memory field rules the API and import apply
    (memories.services.validation)."""

    class Meta:
        model = Memory
        fields = MEMORY_ADMIN_EDITABLE

    def clean(self):
        cleaned = super().clean()
        # What changed, in the types a JSON client would send.
        changes = {
            name: cleaned[name].isoformat() if name == "expires_at" and cleaned[name] else cleaned[name]
            for name in self.changed_data
            if name in cleaned
        }
        self.validated_changes = {}
        try:
            validated = memory_fields_clean(changes, partial=True)
        except ValidationFailed as error:
            for name, messages in error.fields.items():
                field = name.split(".")[0]  # `tags.1` belongs to the tags box
                self.add_error(field if field in self.fields else None, messages)
        else:
            if not self.errors:
                self.validated_changes = validated
        return cleaned


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    form = MemoryAdminForm
    list_display = ["key", "category", "priority", "verified", "source", "mind", "updated_at"]
    list_select_related = ["mind"]
    list_filter = ["category", "priority", "verified", "source"]
    search_fields = ["id", "key", "content", "mind__id", "mind__name"]
    readonly_fields = [
        "id", "mind", "source", "speaker", "verified", "verified_at", "verified_by", "entities", "event_time",
        "event_precision", "emotion", "attributes", "embedding_model", "turn_id", "created_at", "updated_at",
        "promoted_at",
    ]  # fmt: skip

    @admin.display(description="promoted at")
    def promoted_at(self, obj: Memory):
        """When a knot came to hold the current content (the net's link), or empty while pending."""
        memories_knot_ids_attach([obj])
        return obj.promoted_at

    actions = ["verify_selected", "unverify_selected"]

    def get_fields(self, request, obj=None):
        return [*MEMORY_ADMIN_EDITABLE, *self.readonly_fields]

    def has_add_permission(self, request) -> bool:
        # Memories come from agents and people through the API (which derives keys, embeds and
        # audits); the admin curates them.
        return False

    def save_model(self, request, obj, form, change):
        # `obj` already carries the form's values; memory_update re-reads (and locks) the stored
        # row, so the changes are measured against what is stored.
        memory_update(memory=obj, fields=form.validated_changes, caller=caller_of(request.user))

    def delete_model(self, request, obj):
        memory_delete(memory=obj, caller=caller_of(request.user))

    def delete_queryset(self, request, queryset):
        for memory in queryset:
            memory_delete(memory=memory, caller=caller_of(request.user))

    @admin.action(description="Verify selected memories", permissions=["change"])
    def verify_selected(self, request, queryset):
        self._apply_to_each(request, queryset, memory_verify, "Verified")

    @admin.action(description="Unverify selected memories", permissions=["change"])
    def unverify_selected(self, request, queryset):
        self._apply_to_each(request, queryset, memory_unverify, "Unverified")

    def _apply_to_each(self, request, queryset, service, done: str) -> None:
        memories = list(queryset)
        for memory in memories:
            service(memory=memory, caller=caller_of(request.user))
        self.message_user(request, f"{done} {len(memories)} memories.", messages.SUCCESS)
