"""Who a request's user is when it is not a human: the agent of a Mind Key. Without DRF, so the
access matrix and the domain code that asks "is this an agent?" stay free of HTTP; the Mind Key
authentication (minds.authentication) makes these principals."""

from __future__ import annotations

from dataclasses import dataclass

from minds.models import Mind, MindKey


@dataclass(frozen=True)
class AgentPrincipal:
    """`request.user` for a call made with a Mind Key: the agent of exactly one mind."""

    key: MindKey

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False
    pk = None
    id = None

    @property
    def mind(self) -> Mind:
        return self.key.mind

    def __str__(self) -> str:
        return f"agent:{self.key.prefix}"


def is_agent(user: object) -> bool:
    return isinstance(user, AgentPrincipal)
