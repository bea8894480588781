"""`route()`: every API path with and without its trailing slash, both under the route's name."""

from __future__ import annotations

import pytest
from django.urls import resolve, reverse


def test_reversing_a_route_name_gives_the_form_without_the_slash():
    assert reverse("health") == "/health"
    assert reverse("mind-detail", kwargs={"mind_id": "m_abcdefgh12345678"}) == "/minds/m_abcdefgh12345678"


@pytest.mark.parametrize("path", ["/memory/recall", "/memory/recall/"])
def test_both_forms_of_a_path_resolve_to_the_view_under_the_routes_name(path):
    match = resolve(path)

    assert match.url_name == "memory-recall"
    assert match.func.view_class.__name__ == "RecallView"


@pytest.mark.parametrize("path", ["/minds/m_abcdefgh12345678", "/minds/m_abcdefgh12345678/"])
def test_both_forms_of_a_path_with_a_parameter_resolve_under_the_routes_name(path):
    match = resolve(path)

    assert (match.url_name, match.kwargs) == ("mind-detail", {"mind_id": "m_abcdefgh12345678"})
