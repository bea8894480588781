"""What the browser tests do the same way: a phone's viewport, logging a person in, an agent's store."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.conftest import PASSWORD

# A phone's viewport (CSS pixels): an iPhone SE / small Android width.
PHONE_VIEWPORT = {"width": 375, "height": 740}


def log_in(page: Page, base: str, email: str) -> None:
    """Log `email` in through the login form (the cast's one password) and wait for the minds page."""
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your minds")).to_be_visible()


def agent_stores(mind, **fields) -> str:
    """The mind's agent stores a fact with `fields`; its id."""
    response = mind.agent.post("/memory", {"category": "fact", **fields}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]
