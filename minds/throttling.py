"""DRF throttles: per Mind Key everywhere, per client address and per email at /login.

Login counts live in the default cache (the shared database cache), so every web process sees
them. Mind Key counts live where settings.MIND_KEY_THROTTLE_CACHE says (in-process by default:
they are checked on every agent request).
Rates are `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`, read on every request rather than once
at import, so a changed setting (a test's override) applies at once.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from minds.principals import is_agent
from minds.services import email_normalize


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


class LoginIPRateThrottle(_LiveRateThrottle):
    """Login attempts per client address (REMOTE_ADDR, or X-Forwarded-For behind NUM_PROXIES)."""

    scope = "login_ip"

    def get_cache_key(self, request, view) -> str | None:
        return self.key_for(self.get_ident(request))


class RegisterIPRateThrottle(LoginIPRateThrottle):
    """New accounts per client address (same address rules as the login throttle)."""

    scope = "register_ip"


class LoginEmailRateThrottle(_LiveRateThrottle):
    """Login attempts per email, whatever address they come from (slows distributed guessing)."""

    scope = "login_email"

    def get_cache_key(self, request, view) -> str | None:
        email = request.data.get("email")
        if not isinstance(email, str) or not email.strip():
            return None  # the body is refused as invalid anyway
        # Hashed: the cache key stays short and holds no address in clear.
        # surrogatepass: JSON may carry a lone surrogate, which plain UTF-8 refuses (a 500); the
        # body is refused as invalid anyway, but only after the throttle counted it.
        digest = hashlib.sha256(email_normalize(email).encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return self.key_for(digest)
