"""The net's pages in a real browser: the picture is drawn (nodes on the canvas, a click shows a
knot in the panel), under the Content-Security-Policy, and two entities are merged from the
entities page. How long 1,000 knots take to draw is measured by `python -m bench net-picture`."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from synapses.models import Entity, Knot
from tests.browser.pages import PHONE_VIEWPORT, log_in
from tests.nets import net_build

# One worker runs every browser test: one Chromium for the package (conftest.py), not one per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


def _policy_refusals(page: Page) -> list[str]:
    """Console messages of the Content-Security-Policy refusing something, collected from now on."""
    refusals: list[str] = []
    page.on(
        "console", lambda message: refusals.append(message.text) if "Content Security Policy" in message.text else None
    )
    return refusals


def test_the_net_page_draws_every_knot_and_a_click_on_one_shows_it(live_server, page, owner, mind):
    net = net_build(mind)
    refusals = _policy_refusals(page)
    log_in(page, live_server.url, "owner@example.com")
    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/net/")

    expect(page.locator("#net")).to_have_attribute("data-drawn", "4")
    expect(page.locator("#net-status")).to_contain_text("Drew 4 knots and 2 edges")
    assert page.locator("#net canvas").count() >= 1
    drawn = page.evaluate("window.synapseNet.cy.nodes().map(node => window.synapseNet.knots.get(node.id()).key).sort()")
    assert drawn == ["mem_a", "mem_b", "mem_c", "mem_d"]
    assert page.evaluate("performance.getEntriesByName('net-draw').length") == 1

    knot = net["knots"]["d"]
    # The force-directed layout starts from random places and may leave one node over another;
    # a grid puts every knot apart, so the real click below lands on d alone.
    page.evaluate("window.synapseNet.cy.layout({name: 'grid', fit: true, padding: 40}).run()")
    box = page.locator("#net").bounding_box()
    where = page.evaluate(f"window.synapseNet.cy.getElementById('{knot.pk}').renderedPosition()")
    page.mouse.click(box["x"] + where["x"], box["y"] + where["y"])

    panel = page.locator("#net-panel")
    expect(panel).to_have_attribute("data-knot", str(knot.pk))
    expect(panel).to_contain_text("memory d about things")
    expect(panel).to_contain_text("1 edge drawn")
    expect(panel).to_contain_text("embedding + timeline, weight 5.00")
    panel.get_by_role("link", name="Open the memory").click()
    expect(page).to_have_url(f"{live_server.url}/app/memories/{knot.memory_id}/")
    assert refusals == []


def test_a_filter_redraws_only_the_knots_of_an_entity(live_server, page, owner, mind):
    net = net_build(mind)
    log_in(page, live_server.url, "owner@example.com")
    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/net/")
    page.get_by_label("Entity").select_option(label="Anna")
    page.get_by_role("button", name="Draw").click()

    expect(page.locator("#net")).to_have_attribute("data-drawn", "2")
    assert f"entity={net['anna'].pk}" in page.url


def test_two_entities_are_merged_from_the_entities_page(live_server, page, owner, mind):
    net = net_build(mind)
    anna, schmidt, knots = net["anna"], net["schmidt"], net["knots"]
    refusals = _policy_refusals(page)
    log_in(page, live_server.url, "owner@example.com")
    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/entities/")

    page.get_by_label("Merge", exact=True).select_option(label="Schmidt")
    page.get_by_label("into", exact=True).select_option(label="Anna")
    page.get_by_role("button", name="Merge").click()

    expect(page.get_by_role("status")).to_contain_text("Entity Schmidt merged into Anna")
    expect(page.locator("table.entities")).to_contain_text("Annie, Schmidt")
    assert not Entity.objects.filter(pk=schmidt.pk).exists()
    assert Knot.objects.get(pk=knots["c"].pk).entities == [anna.pk]
    assert refusals == []


def test_an_entity_is_deleted_from_the_entities_page_and_its_name_is_ignored(live_server, page, owner, mind):
    net = net_build(mind)
    schmidt, knots = net["schmidt"], net["knots"]
    refusals = _policy_refusals(page)
    log_in(page, live_server.url, "owner@example.com")
    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/entities/")

    row = page.locator(f"#entity-{schmidt.pk}")
    row.get_by_text("Delete…").click()
    row.get_by_role("button", name="Delete Schmidt").click()

    expect(page.get_by_role("status")).to_contain_text("Entity Schmidt deleted")
    expect(page.get_by_label("Ignored names")).to_have_value("schmidt")
    assert not Entity.objects.filter(pk=schmidt.pk).exists()
    assert all(schmidt.pk not in knot.entities for knot in Knot.objects.filter(pk__in=[k.pk for k in knots.values()]))
    assert refusals == []


def test_the_net_pages_fit_a_phone_s_width(live_server, browser, owner, mind):
    net = net_build(mind)
    context = browser.new_context(viewport=PHONE_VIEWPORT, device_scale_factor=1)
    page = context.new_page()
    log_in(page, live_server.url, "owner@example.com")
    pages = {
        "net": f"/app/minds/{mind.mind.pk}/net/",
        "entities": f"/app/minds/{mind.mind.pk}/entities/",
        "recall": f"/app/minds/{mind.mind.pk}/recall/?q=where+does+anna+live",
        "memory": f"/app/memories/{net['knots']['a'].memory_id}/",
    }
    too_wide = {}
    for name, path in pages.items():
        page.goto(live_server.url + path)
        scroll_width, client_width = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        if scroll_width > client_width:
            too_wide[name] = scroll_width
    context.close()
    assert too_wide == {}
