"""The human UI in a real browser: log in, review and verify, a key shown once, a read share
refused, and every page at phone width without horizontal scrolling."""

from __future__ import annotations

import struct

import pytest
from playwright.sync_api import expect

from bench.screenshots import PAGES
from memories.models import Memory
from minds.mindkeys import mind_key_digest
from minds.models import MindKey
from synapses.models import Goal
from tests.browser.pages import PHONE_VIEWPORT, agent_stores, log_in

# One worker runs every browser test: one Chromium for the package (conftest.py), not one per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


def test_a_person_logs_in_opens_the_mind_and_verifies_a_memory_from_the_keyboard(live_server, page, owner, mind):
    memory_id = agent_stores(mind, content="Anna is my sister", key="anna")
    log_in(page, live_server.url, "owner@example.com")

    page.get_by_role("link", name=mind.mind.name).first.click()
    expect(page.locator(f'[data-memory="{memory_id}"]')).to_contain_text("Anna is my sister")
    page.get_by_role("link", name="Review queue").click()
    card = page.locator(f'[data-memory="{memory_id}"]')
    expect(card).to_be_focused()  # review.js focuses the first memory of the queue
    page.keyboard.press("v")

    expect(page.get_by_role("status")).to_contain_text("Memory anna verified.")
    expect(page.get_by_text("Nothing to review")).to_be_visible()
    memory = Memory.objects.get(pk=memory_id)
    assert memory.verified and memory.verified_by_id == owner.user.pk


def test_an_issued_key_is_shown_once_and_works_for_the_agent(live_server, page, owner, mind):
    log_in(page, live_server.url, "owner@example.com")
    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/keys/")

    page.get_by_label("Label").fill("browser agent")
    page.get_by_role("button", name="Issue a key").click()
    plaintext = page.locator("#mind-key").inner_text().strip()
    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/keys/")

    key = MindKey.objects.get(mind=mind.mind, label="browser agent")
    assert plaintext.startswith(key.prefix) and key.digest == mind_key_digest(plaintext)
    assert plaintext not in page.content()
    expect(page.get_by_text(f"{key.prefix}…")).to_be_visible()
    answer = page.request.get(f"{live_server.url}/memory/recall", headers={"Authorization": f"Bearer {plaintext}"})
    assert answer.status == 200


def test_a_person_opens_the_trace_of_what_the_agent_did(live_server, page, owner, mind):
    memory_id = agent_stores(mind, content="Anna is my sister", key="anna")
    turn_id = Memory.objects.get(pk=memory_id).turn_id
    log_in(page, live_server.url, "owner@example.com")

    page.goto(f"{live_server.url}/app/log/?mind={mind.mind.pk}")
    page.locator(f'a[href^="/app/log/{turn_id}/"]').click()

    expect(page.get_by_role("heading", level=1)).to_contain_text(turn_id)
    spans = page.locator("details.span")
    expect(spans.first).to_be_visible()
    assert spans.count() >= 1
    expect(page.locator("main")).to_contain_text("Anna is my sister")  # the stored content, in the span's rows


def test_a_read_share_sees_no_verify_button_and_is_refused_when_it_posts_anyway(live_server, page, reader, mind):
    memory_id = agent_stores(mind, content="Anna is my sister", key="anna")
    log_in(page, live_server.url, "reader@example.com")

    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/unverified/")
    expect(page.locator(f'[data-memory="{memory_id}"]')).to_be_visible()
    expect(page.locator('[data-action="verify"]')).to_have_count(0)
    token = page.locator('input[name="csrfmiddlewaretoken"]').first.get_attribute("value")
    refused = page.request.post(
        f"{live_server.url}/app/memories/{memory_id}/verify/",
        form={"csrfmiddlewaretoken": token},
        headers={"Origin": live_server.url},
    )

    assert refused.status == 403
    assert "This needs write access to the mind; you have read access." in refused.text()
    assert Memory.objects.get(pk=memory_id).verified is False


def _png_width(path) -> int:
    with open(path, "rb") as png:
        header = png.read(24)
    return struct.unpack(">I", header[16:20])[0]  # IHDR: width, then height


def test_every_page_fits_a_phone_width_without_horizontal_scrolling(live_server, browser, owner, mind, tmp_path):
    memory_id = agent_stores(
        mind,
        content="A long unbroken word: " + "Donaudampfschifffahrtsgesellschaftskapitän" * 3,
        key="a_rather_long_key_for_a_narrow_screen_" + "x" * 40,
        tags=["family", "a-very-long-tag-name-that-could-push-the-layout"],
    )
    Goal.objects.create(mind=mind.mind, statement="A goal with a " + "verylongunbrokenword" * 5, motivation=0.5)
    context = browser.new_context(viewport=PHONE_VIEWPORT, device_scale_factor=1)
    anonymous, page = context.new_page(), None
    ids = {"mind": mind.mind.pk, "memory": memory_id, "turn": Memory.objects.get(pk=memory_id).turn_id}
    too_wide = {}
    for ui_page in PAGES:  # the screenshots' list of every page (bench/screenshots.py)
        if ui_page.logged_in and page is None:
            page = context.new_page()
            log_in(page, live_server.url, "owner@example.com")
        tab = page if ui_page.logged_in else anonymous
        tab.goto(live_server.url + ui_page.url(ids))
        if ui_page.ready:
            tab.wait_for_selector(ui_page.ready)
        scroll_width, client_width = tab.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        if scroll_width > client_width:
            too_wide[ui_page.name] = scroll_width
    screenshot = tmp_path / "review-queue-phone.png"
    page.goto(f"{live_server.url}/app/minds/{mind.mind.pk}/unverified/")
    page.screenshot(path=screenshot, full_page=True)
    context.close()

    assert len(PAGES) >= 17 and too_wide == {}
    assert _png_width(screenshot) == PHONE_VIEWPORT["width"]
