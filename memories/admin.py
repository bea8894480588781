"""The Django admin for the memories app. Writes go through the services where one exists.

Users stay in Django's own admin (django.contrib.auth). Keep one section per model.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from memories.access import caller_of
from memories.api.serializers import MemoryInputSerializer
from memories.models import Memory, Mind, MindKey, MindShare
from memories.services.accounts import (
    mind_create,
    mind_delete,
    mind_key_issue,
    mind_key_revoke,
    mind_share_delete,
    mind_share_grant,
    mind_share_update,
    mind_update,
)
from memories.services.memory import memory_delete, memory_unverify, memory_update, memory_verify


def _show_key_once(model_admin: admin.ModelAdmin, request, plaintext: str) -> None:
    model_admin.message_user(
        request,
        f"The new Mind Key is {plaintext} — copy it now; it is not stored and will not be shown again.",
        messages.WARNING,
    )


# --- Minds ----------------------------------------------------------------------------------


@admin.register(Mind)
class MindAdmin(admin.ModelAdmin):
    list_display = ["name", "id", "owner", "created_at"]
    list_select_related = ["owner"]
    search_fields = ["id", "name", "owner__email", "owner__username"]
    raw_id_fields = ["owner"]
    # `settings` belongs to the synapse model and has no service to write it yet.
    readonly_fields = ["id", "settings", "created_at", "updated_at"]

    def get_readonly_fields(self, request, obj=None):
        # Ownership does not move.
        return [*self.readonly_fields, "owner"] if obj else self.readonly_fields

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["owner", "name", "description"]
        return ["id", "owner", "name", "description", "settings", "created_at", "updated_at"]

    def save_model(self, request, obj, form, change):
        if change:
            mind_update(mind=obj, name=obj.name, description=obj.description)
            return
        mind, issued = mind_create(owner=obj.owner, name=obj.name, description=obj.description)
        obj.pk = mind.pk  # the admin redirects to and logs `obj`
        _show_key_once(self, request, issued.plaintext)

    def delete_model(self, request, obj):
        mind_delete(mind=obj)

    def delete_queryset(self, request, queryset):
        for mind in queryset:
            mind_delete(mind=mind)


# --- Mind Keys ------------------------------------------------------------------------------


@admin.register(MindKey)
class MindKeyAdmin(admin.ModelAdmin):
    list_display = ["prefix", "label", "mind", "created_at", "last_used_at", "revoked_at"]
    list_select_related = ["mind"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["prefix", "label", "mind__id", "mind__name"]
    raw_id_fields = ["mind"]
    # The digest is never shown, not even read-only.
    exclude = ["digest"]
    actions = ["revoke_selected"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["mind", "label"]
        return ["prefix", "mind", "label", "created_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request, obj=None):
        # A key never changes; it is only revoked (the action).
        if obj is None:
            return []
        return ["prefix", "mind", "label", "created_at", "last_used_at", "revoked_at"]

    def save_model(self, request, obj, form, change):
        if change:
            return  # nothing is editable
        issued = mind_key_issue(mind=obj.mind, label=obj.label)
        obj.pk = issued.key.pk
        _show_key_once(self, request, issued.plaintext)

    @admin.action(description="Revoke selected keys", permissions=["change"])
    def revoke_selected(self, request, queryset):
        keys = list(queryset)
        for key in keys:
            mind_key_revoke(key=key)
        self.message_user(request, f"Revoked {len(keys)} key(s); they answer 401 from now on.", messages.SUCCESS)


# --- Shares ---------------------------------------------------------------------------------


@admin.register(MindShare)
class MindShareAdmin(admin.ModelAdmin):
    list_display = ["mind", "user", "acl", "created_at"]
    list_select_related = ["mind", "user"]
    list_filter = ["acl"]
    search_fields = ["mind__id", "mind__name", "user__email", "user__username"]
    raw_id_fields = ["mind", "user"]

    def get_readonly_fields(self, request, obj=None):
        # A share belongs to one mind and one user; only its level changes.
        return ["mind", "user", "created_at", "updated_at"] if obj else []

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["mind", "user", "acl"]
        return ["mind", "user", "acl", "created_at", "updated_at"]

    def save_model(self, request, obj, form, change):
        if change:
            mind_share_update(share=obj, acl=obj.acl)
            return
        obj.pk = mind_share_grant(mind=obj.mind, user=obj.user, acl=obj.acl).pk

    def delete_model(self, request, obj):
        mind_share_delete(share=obj)

    def delete_queryset(self, request, queryset):
        for share in queryset:
            mind_share_delete(share=share)


# --- Memories -------------------------------------------------------------------------------

# What a human may change here; the rest (provenance, event time, vectors) is shown read-only.
MEMORY_ADMIN_EDITABLE = ["category", "key", "content", "tags", "priority", "confidence", "salience", "expires_at"]


class MemoryAdminForm(forms.ModelForm):
    """The admin's memory form, validated by the same rules as the API (MemoryInputSerializer)."""

    class Meta:
        model = Memory
        fields = MEMORY_ADMIN_EDITABLE

    def clean(self):
        cleaned = super().clean()
        # The API's input: what changed, in the types a JSON client would send.
        changes = {
            name: cleaned[name].isoformat() if name == "expires_at" and cleaned[name] else cleaned[name]
            for name in self.changed_data
            if name in cleaned
        }
        serializer = MemoryInputSerializer(data=changes, partial=True)
        if not serializer.is_valid():
            for name, errors in serializer.errors.items():
                self.add_error(name.split(".")[0] if name.split(".")[0] in self.fields else None, errors)
        self.validated_changes = serializer.validated_data if not self.errors else {}
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
