"""Content negotiation for views that answer more than JSON."""

from __future__ import annotations


class LenientNegotiationMixin:
    """Views that answer text or CSV themselves: an `Accept: text/plain` or `?format=csv` must not
    make DRF answer 406/404 before the view runs. Errors still leave as JSON."""

    def perform_content_negotiation(self, request, force=False):
        return super().perform_content_negotiation(request, force=True)
