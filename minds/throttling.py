"""DRF throttles: per Mind Key everywhere, per client address at /register; the client address
the login policy (minds/login_policy.py) counts.

Registration counts live in the default cache (the shared database cache), so every web process
sees them. Mind Key counts live where settings.MIND_KEY_THROTTLE_CACHE says (in-process by
default: they are checked on every agent request).
Rates are `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`, read on every request rather than once
at import, so a changed setting (a test's override) applies at once.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from minds.principals import is_agent


class _LiveRateThrottle(SimpleRateThrottle):
    def get_rate(self) -> str:
        try:
            return api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(
                f'REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] has no rate for the scope {self.scope!r}.'
            ) from None

    def key_for(self, ident: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": ident}


class MindKeyRateThrottle(_LiveRateThrottle):
    """Requests per Mind Key (by its public prefix). Human calls are not counted here."""

    scope = "mind_key"

    @property
    def cache(self):
        return caches[settings.MIND_KEY_THROTTLE_CACHE]

    def get_cache_key(self, request, view) -> str | None:
        if not is_agent(request.user):
            return None
        return self.key_for(request.user.key.prefix)


class RegisterIPRateThrottle(_LiveRateThrottle):
    """New accounts per client address (REMOTE_ADDR, or X-Forwarded-For behind NUM_PROXIES)."""

    scope = "register_ip"

    def get_cache_key(self, request, view) -> str | None:
        return self.key_for(self.get_ident(request))


def client_address(request) -> str:
    """The client address of a Django or DRF request, read as the throttles read it: REMOTE_ADDR,
    or X-Forwarded-For behind NUM_PROXIES (so a client cannot forge one without a proxy)."""
    return BaseThrottle().get_ident(request)
