"""The access matrix: who may do what with a mind.

Levels are ordered: read < write < admin < owner. An agent (Mind Key) acts on its own mind
with `write`; it never verifies, shares or manages keys (those are human). A mind the caller
cannot see answers 404, never 403, so its existence is not revealed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

from memoryproject.core.converters import MindIdConverter
from memoryproject.core.domain import NotFound, PermissionDenied
from minds.models import Mind, MindShare, ShareAccess
from minds.principals import is_agent
from minds.signals import mind_resolved


class Access(IntEnum):
    READ = 1
    WRITE = 2
    ADMIN = 3
    OWNER = 4

    @classmethod
    def from_share(cls, acl: str) -> Access:
        return {ShareAccess.READ: cls.READ, ShareAccess.WRITE: cls.WRITE, ShareAccess.ADMIN: cls.ADMIN}[acl]

    @property
    def label(self) -> str:
        return self.name.lower()


# What a Mind Key may do on its own mind.
AGENT_ACCESS = Access.WRITE

MIND_NOT_FOUND = "No mind with this id is visible to you."


def mind_access_of(*, user, mind: Mind) -> Access | None:
    """The caller's level on `mind`, or None when they cannot see it."""
    if is_agent(user):
        return AGENT_ACCESS if user.mind.pk == mind.pk else None
    if not getattr(user, "is_authenticated", False):
        return None
    if mind.owner_id == user.pk:
        return Access.OWNER
    acl = MindShare.objects.filter(mind=mind, user=user).values_list("acl", flat=True).first()
    return Access.from_share(acl) if acl else None


def mind_require(*, user, mind: Mind, need: Access) -> Access:
    """NotFound when `mind` is invisible to `user`, PermissionDenied when their level is below `need`."""
    level = mind_access_of(user=user, mind=mind)
    if level is None:
        raise NotFound(MIND_NOT_FOUND)
    # The caller can see the mind: the request's log rows belong to it (a refused write included).
    # Humans name a mind per request, so it is announced here; a Mind Key announced its own mind
    # when it authenticated (minds.authentication).
    mind_resolved.send(sender=Mind, mind=mind)
    if level < need:
        raise PermissionDenied(f"This needs {need.label} access to the mind; you have {level.label} access.")
    return level


def mind_get_for(*, user, mind_id: str, need: Access) -> tuple[Mind, Access]:
    """Load a mind by id for `user` and check their level (NotFound / PermissionDenied as above).

    The one way to load a mind with an access check: the API resolves the mind a request names
    with it (minds.api.request_mind), and the mind endpoints by their path's id. The mind comes
    back with `access`, the caller's level as a word, which the mind's JSON shows."""
    # Anything that cannot be a mind id (a NUL, 5,000 characters) is simply not found; it must
    # not reach PostgreSQL, which refuses NUL in text with an error.
    if not re.fullmatch(MindIdConverter.regex, mind_id):
        raise NotFound(MIND_NOT_FOUND)
    mind = Mind.objects.filter(pk=mind_id).first()
    if mind is None:
        raise NotFound(MIND_NOT_FOUND)
    level = mind_require(user=user, mind=mind, need=need)
    mind.access = level.label
    return mind, level


def caller_label(user) -> str:
    """Who did it, for audit rows and the pipeline log: `agent:<key prefix>` or `user:<id>`."""
    return str(user) if is_agent(user) else f"user:{user.pk}"  # an AgentPrincipal reads `agent:<prefix>`


@dataclass(frozen=True)
class Caller:
    """Who is writing, as services need it: a label for audit/log rows and the human, if any."""

    label: str  # `user:<id>` or `agent:<key prefix>`
    user: object | None  # the human User; None for agents
    is_agent: bool


def caller_of(user) -> Caller:
    if is_agent(user):
        return Caller(label=caller_label(user), user=None, is_agent=True)
    return Caller(label=caller_label(user), user=user, is_agent=False)
