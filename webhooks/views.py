"""The UI page of a mind's webhooks (docs/ui.md, docs/webhooks.md): the hooks and their recent
delivery attempts, read-only; hooks are made and changed through the API."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memoryproject.core.ui_pages import ui_view
from minds.access import Access, mind_get_for
from webhooks.selectors import mind_deliveries_recent, webhooks_list

# Delivery attempts the page shows, newest first.
UI_RECENT_DELIVERIES = 50


@ui_view
@require_GET
def mind_webhooks(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The mind's hooks (never a secret) and its last attempts (write access, as the API)."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    context = {
        "mind": mind,
        "webhooks": webhooks_list(mind_id=mind.pk),
        "deliveries": mind_deliveries_recent(mind_id=mind.pk, limit=UI_RECENT_DELIVERIES),
    }
    return render(request, "webhooks/webhooks.html", context)
