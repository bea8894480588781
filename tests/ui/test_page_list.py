"""The one list of the UI's pages (bench/screenshots.py PAGES), which the screenshots and the
phone-width browser test walk: every entry is a page of the UI, each named once."""

from __future__ import annotations

from django.urls import resolve

from bench.screenshots import PAGES
from memoryproject.views import json_not_found

DEMO_IDS = {"mind": "m_" + "a" * 16, "memory": "mem_" + "b" * 16, "turn": "t_1"}


def test_every_listed_page_resolves_to_a_ui_view_and_no_name_repeats():
    views = {page.name: resolve(page.url(DEMO_IDS).split("?")[0]).func for page in PAGES}

    assert len(views) == len(PAGES)
    assert [name for name, view in views.items() if view is json_not_found] == []
    assert all(page.path.startswith(("/app/", "/accounts/")) for page in PAGES)
