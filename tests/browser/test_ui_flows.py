"""The human UI in Chromium: the first-use flow from registration to a verified memory in the
agent's recall, and every form of the UI sent with JavaScript switched off."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import requests
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from memories.models import Memory
from minds.models import Mind, MindKey, MindShare
from synapses.models import Goal
from tests.browser.pages import agent_stores, log_in

# One worker runs every browser test: one Chromium for the package (conftest.py), not one per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

NEW_PASSWORD = "Hopper-compiler-1952"


def test_a_new_person_registers_creates_a_mind_and_verifies_what_its_agent_stored(live_server, page: Page):
    base = live_server.url
    page.goto(f"{base}/accounts/register/")
    page.get_by_label("Email").fill("grace@example.com")
    page.locator("#id_password").fill(NEW_PASSWORD)
    page.get_by_label("Password again").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("status")).to_contain_text("Welcome, grace@example.com.")
    page.get_by_role("button", name="Log out").click()
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Email").fill("grace@example.com")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()

    page.get_by_label("Name").fill("Grace's agent")
    page.get_by_role("button", name="Create mind").click()
    key = page.locator("#mind-key").inner_text().strip()
    mind = Mind.objects.get(name="Grace's agent")
    page.goto(f"{base}/app/minds/{mind.pk}/keys/")
    assert key not in page.content()  # shown once
    # The agent stores a memory over HTTP with that key, as a real agent would.
    stored = requests.post(f"{base}/memory", json={"category": "fact", "content": "Grace writes compilers"},
                           headers={"Authorization": f"Bearer {key}"}, timeout=30)  # fmt: skip
    assert stored.status_code == 201, stored.text
    before = requests.get(f"{base}/memory/recall", headers={"Authorization": f"Bearer {key}"}, timeout=30).text
    page.goto(f"{base}/app/minds/{mind.pk}/unverified/")
    page.locator(f'[data-memory="{stored.json()["id"]}"] [data-action="verify"]').click()
    expect(page.get_by_role("status")).to_contain_text("verified.")
    after = requests.get(f"{base}/memory/recall", headers={"Authorization": f"Bearer {key}"}, timeout=30).text

    assert "[unverified]" in before and "Grace writes compilers" in before
    line = next(line for line in after.splitlines() if "] fact" in line)
    assert "[verified]" in line and "Grace writes compilers" in after


def _no_js_page(browser: Browser, base: str, email: str = "owner@example.com") -> Page:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    log_in(page, base, email)
    return page


def test_every_form_works_with_javascript_off(live_server, browser, owner, mind, outsider, tmp_path):
    base, mind_id = live_server.url, mind.mind.pk
    page = _no_js_page(browser, base)
    status = page.get_by_role("status")

    # A memory: store, verify, mark unverified, edit, delete.
    page.goto(f"{base}/app/minds/{mind_id}/memories/new/")
    page.get_by_label("Content").fill("Likes green tea")
    page.get_by_label("Key").fill("tea")
    page.get_by_role("button", name="Store").click()
    expect(status).to_contain_text("Memory tea stored.")
    tea = Memory.objects.get(mind=mind.mind, key="tea")
    agent_id = agent_stores(mind, content="Anna is my sister", key="anna")
    page.goto(f"{base}/app/memories/{agent_id}/")
    page.get_by_role("button", name="Verify").click()
    expect(status).to_contain_text("Memory anna verified.")
    page.get_by_role("button", name="Mark unverified").click()
    expect(status).to_contain_text("Memory anna marked unverified.")
    page.get_by_role("link", name="Edit").click()
    page.get_by_label("Tags").fill("family")
    page.get_by_role("button", name="Save").click()
    expect(status).to_contain_text("changed: tags")
    assert Memory.objects.get(pk=agent_id).tags == ["family"]
    page.goto(f"{base}/app/memories/{tea.pk}/")
    page.get_by_role("button", name="Delete").click()
    expect(status).to_contain_text("Memory tea deleted.")
    assert not Memory.objects.filter(pk=tea.pk).exists()

    # Bulk verify: tick two, leave one.
    ids = [agent_stores(mind, content=f"fact {number}", key=f"k{number}") for number in range(3)]
    page.goto(f"{base}/app/minds/{mind_id}/")
    for memory_id in ids[:2]:
        page.locator(f'[data-memory="{memory_id}"] input[type="checkbox"]').check()
    page.get_by_role("button", name="Verify selected").click()
    expect(status).to_contain_text("2 memories verified.")
    assert [Memory.objects.get(pk=memory_id).verified for memory_id in ids] == [True, True, False]

    # Goals: add, change, delete.
    page.goto(f"{base}/app/minds/{mind_id}/goals/")
    new_goal = page.locator('form[action$="/goals/new/"]')
    new_goal.get_by_label("Statement").fill("Run a marathon")
    new_goal.get_by_label("Motivation").fill("0.7")
    new_goal.get_by_role("button", name="Add goal").click()
    expect(status).to_contain_text("Goal “Run a marathon” added.")
    goal = Goal.objects.get(mind=mind.mind)
    card = page.locator(f'[data-goal="{goal.pk}"]')
    card.get_by_label("Motivation").fill("0.3")
    card.get_by_label("Active").uncheck()
    card.get_by_role("button", name="Save goal").click()
    expect(status).to_contain_text("motivation 0.3, inactive")
    page.locator(f'[data-goal="{goal.pk}"]').get_by_role("button", name="Delete goal").click()
    expect(status).to_contain_text("deleted")
    assert not Goal.objects.filter(mind=mind.mind).exists()

    # Profile and export are pages to read; import a file back, compact old memories.
    page.goto(f"{base}/app/minds/{mind_id}/profile/")
    expect(page.get_by_role("heading", name="profile")).to_be_visible()
    upload = tmp_path / "more.jsonl"
    upload.write_text(json.dumps({"category": "fact", "key": "imported", "content": "From a file"}) + "\n")
    page.goto(f"{base}/app/minds/{mind_id}/transfer/")
    page.get_by_label("File").set_input_files(str(upload))
    page.get_by_role("button", name="Import the file").click()
    expect(status).to_contain_text("Imported more.jsonl: 1 created")
    trips = [agent_stores(mind, content=f"Trip note {n}", key=f"trip{n}", tags=["trip"]) for n in range(3)]
    Memory.objects.filter(pk__in=trips).update(updated_at=timezone.now() - timedelta(days=40))
    page.goto(f"{base}/app/minds/{mind_id}/compact/")
    page.get_by_role("button", name="Compact now").click()
    expect(status).to_contain_text("Compacted 3 memories into 1 group.")
    assert Memory.objects.filter(mind=mind.mind, source="system").count() == 1

    # Keys and shares, renaming, deleting the mind.
    page.goto(f"{base}/app/minds/{mind_id}/keys/")
    page.get_by_label("Label").fill("phone agent")
    page.get_by_role("button", name="Issue a key").click()
    expect(page.locator("#mind-key")).to_be_visible()
    page.goto(f"{base}/app/minds/{mind_id}/keys/")
    page.locator("tr", has_text="phone agent").get_by_role("button", name="Revoke").click()
    expect(status).to_contain_text("revoked")
    assert MindKey.objects.get(mind=mind.mind, label="phone agent").revoked_at is not None
    page.get_by_label("Email of the account").fill("outsider@example.com")
    page.locator("#id_acl").select_option("read")
    page.get_by_role("button", name="Share").click()
    expect(status).to_contain_text("Shared with outsider@example.com (read).")
    page.get_by_label("Access of outsider@example.com").select_option("write")
    page.get_by_role("button", name="Change").click()
    expect(status).to_contain_text("now has write access")
    page.get_by_role("button", name="Stop sharing").click()
    expect(status).to_contain_text("No longer shared with outsider@example.com.")
    assert not MindShare.objects.filter(mind=mind.mind).exists()
    page.locator("#id_name").fill("Renamed mind")
    page.get_by_role("button", name="Save name and description").click()
    expect(status).to_contain_text("Mind renamed to “Renamed mind”.")
    page.get_by_label("Type the mind's name to confirm").fill("Renamed mind")
    page.get_by_role("button", name="Delete the mind").click()
    expect(status).to_contain_text("Mind “Renamed mind” and everything in it deleted.")
    assert not Mind.objects.filter(pk=mind_id).exists()

    # A new mind from the dashboard, and logging out: forms too.
    page.locator("#id_name").fill("Second mind")
    page.get_by_role("button", name="Create mind").click()
    expect(page.locator("#mind-key")).to_be_visible()
    page.get_by_role("button", name="Log out").click()
    expect(status).to_contain_text("Logged out.")
    page.context.close()
