"""The Django admin for minds, their keys and shares. Writes go through the services.

Users stay in Django's own admin (django.contrib.auth), with one action more: lifting the login
policy's lockouts. Keep one section per model.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from minds.login_policy import login_unlock
from minds.models import Mind, MindKey, MindShare
from minds.services import (
    mind_create,
    mind_delete,
    mind_key_issue,
    mind_key_revoke,
    mind_share_delete,
    mind_share_grant,
    mind_share_update,
    mind_update,
)


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


# --- Users ----------------------------------------------------------------------------------

User = get_user_model()


class SynapseUserAdmin(UserAdmin):
    """Django's user admin, plus the action of `manage.py unlock`."""

    actions = [*UserAdmin.actions, "unlock_logins"]

    @admin.action(description="Lift login lockouts (as manage.py unlock)", permissions=["change"])
    def unlock_logins(self, request, queryset):
        lifted = sum(login_unlock(email=user.email or user.get_username()) for user in queryset)
        self.message_user(request, f"{lifted} lockout(s) lifted; the accounts' delays are reset.", messages.SUCCESS)


admin.site.unregister(User)
admin.site.register(User, SynapseUserAdmin)
