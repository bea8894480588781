"""Reading minds, keys and shares as a human sees them.

Minds come back with an `access` attribute: the caller's level as a word
(`owner`, `admin`, `write`, `read`).
"""

from __future__ import annotations

from django.db.models import Case, CharField, Exists, OuterRef, Q, QuerySet, Subquery, Value, When

from memoryproject.core.domain import NotFound
from minds.access import Access
from minds.models import Mind, MindKey, MindShare

KEY_NOT_FOUND = "This mind has no key with this id."
SHARE_NOT_FOUND = "This mind has no share with this id."


def _share_acl_of(user) -> QuerySet[MindShare]:
    return MindShare.objects.filter(mind=OuterRef("pk"), user=user).values("acl")[:1]


def _with_access(minds: QuerySet[Mind], user) -> QuerySet[Mind]:
    return minds.annotate(
        access=Case(
            When(owner=user, then=Value(Access.OWNER.label)),
            default=Subquery(_share_acl_of(user)),
            output_field=CharField(),
        )
    )


def minds_list(*, user) -> QuerySet[Mind]:
    """Minds `user` owns or that are shared with them, oldest first, each with `access`."""
    visible = Mind.objects.filter(Q(owner=user) | Exists(MindShare.objects.filter(mind=OuterRef("pk"), user=user)))
    return _with_access(visible, user).select_related("owner").order_by("created_at", "id")


def minds_shared_list(*, user) -> QuerySet[Mind]:
    """Minds other people shared with `user`, oldest first, each with `access`."""
    shared = Mind.objects.filter(Exists(MindShare.objects.filter(mind=OuterRef("pk"), user=user))).exclude(owner=user)
    return _with_access(shared, user).select_related("owner").order_by("created_at", "id")


def mind_keys_list(*, mind: Mind) -> QuerySet[MindKey]:
    """All keys of the mind, revoked ones included, oldest first."""
    return MindKey.objects.filter(mind=mind).order_by("created_at", "id")


def mind_key_get(*, mind: Mind, key_id: int) -> MindKey:
    """A key of `mind` by id; NotFound when the mind has none with that id."""
    key = MindKey.objects.filter(mind=mind, pk=key_id).first()
    if key is None:
        raise NotFound(KEY_NOT_FOUND)
    return key


def mind_shares_list(*, mind: Mind) -> QuerySet[MindShare]:
    """Who the mind is shared with, oldest share first."""
    return MindShare.objects.filter(mind=mind).select_related("user").order_by("created_at", "id")


def mind_share_get(*, mind: Mind, share_id: int) -> MindShare:
    """A share of `mind` by id; NotFound when the mind has none with that id."""
    share = MindShare.objects.filter(mind=mind, pk=share_id).select_related("user").first()
    if share is None:
        raise NotFound(SHARE_NOT_FOUND)
    return share
