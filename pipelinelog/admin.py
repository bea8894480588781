"""The log in the admin: filter by kind, mind and time; search by turn or span. Read-only.

No filter whose choices come from the log itself (a node filter's SELECT DISTINCT, the date
hierarchy's dates query): each would scan the whole table on every page view.
"""

from __future__ import annotations

import contextlib
import json
import uuid

from django.contrib import admin
from django.db.models import Q
from django.utils.html import format_html

from pipelinelog.models import LogEntry


@admin.register(LogEntry)
class LogEntryAdmin(admin.ModelAdmin):
    list_display = ["created_at", "node", "kind", "source", "mind", "turn_id", "short_span", "short_content"]
    list_filter = ["kind", "mind", "created_at"]
    search_fields = ["turn_id", "span_id"]  # matched exactly, see get_search_results
    search_help_text = "A turn id or a span id, exactly."
    ordering = ["-created_at", "-id"]
    list_select_related = ["mind"]
    readonly_fields = ["created_at", "turn_id", "span_id", "source", "node", "kind", "mind", "pretty_content"]
    exclude = ["content"]
    show_full_result_count = False  # counting millions of rows on every page view is not worth it

    @admin.display(description="span")
    def short_span(self, entry: LogEntry) -> str:
        return str(entry.span_id)[:8] if entry.span_id else "—"

    @admin.display(description="content")
    def short_content(self, entry: LogEntry) -> str:
        text = json.dumps(entry.content, ensure_ascii=False)
        return text if len(text) <= 120 else text[:119] + "…"

    @admin.display(description="content")
    def pretty_content(self, entry: LogEntry) -> str:
        return format_html("<pre>{}</pre>", json.dumps(entry.content, ensure_ascii=False, indent=2))

    def get_search_results(self, request, queryset, search_term: str):
        # Exact matches only (both columns are indexed); a term that is no UUID never reaches
        # the span column, where it would be an invalid value instead of no match.
        term = search_term.strip()
        if not term:
            return queryset, False
        match = Q(turn_id=term)
        with contextlib.suppress(ValueError):
            match |= Q(span_id=uuid.UUID(term))
        return queryset.filter(match), False

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
