"""The mind a request acts on: the Mind Key's own, or the one a human names (`?mind=` / `X-Mind`)."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from memoryproject.core.api.params import MIND_HEADER, MIND_PARAM
from memoryproject.core.domain import PermissionDenied
from minds.access import AGENT_ACCESS, Access, mind_get_for
from minds.models import Mind
from minds.principals import AgentPrincipal


def named_mind_id(request: Request) -> str | None:
    """The mind id the client named, trimmed (blanks name no mind that exists); None when it named none."""
    mind_id = request.query_params.get(MIND_PARAM) or request.headers.get(MIND_HEADER)
    return mind_id.strip() if mind_id else None


def mind_from_request(request: Request, *, need: Access) -> tuple[Mind, Access]:
    """The mind a memory endpoint acts on: the key's mind, or `?mind=` / `X-Mind` for humans.

    Authorizes before anything else of the request is validated: a caller who may not see the
    mind gets its 404 whatever else is wrong with the request (docs/architecture.md).
    """
    user = request.user
    if isinstance(user, AgentPrincipal):
        if need > AGENT_ACCESS:
            raise PermissionDenied("A Mind Key cannot do this; a human with access to the mind can.")
        return user.mind, AGENT_ACCESS
    mind_id = named_mind_id(request)
    if mind_id is None:
        message = f"Name the mind: add ?{MIND_PARAM}=<mind id> or the header {MIND_HEADER}: <mind id>."
        raise ValidationError({MIND_PARAM: [message]})
    return mind_get_for(user=user, mind_id=mind_id, need=need)
