"""Browser tests: Playwright for Python drives Debian's Chromium (installed by .ci/run with apt;
no browser download) against pytest-django's live server.

Playwright's sync API runs an event loop in the test's thread for as long as it is started, and
Django refuses ORM calls while it sees one. So Playwright lives for this package only (started
by the first browser test, stopped after the last), not for the session as pytest-playwright's
fixtures would keep it: the tests after this package see no event loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

# Debian's package `chromium` puts its browser here.
CHROMIUM = Path("/usr/bin/chromium")
# Headless, and nothing that reaches out of the machine (updates, sync, safe-browsing lists).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # the tests may run as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session", autouse=True)
def _test_database_before_the_browser(django_db_setup):
    """Create the test database before Playwright starts its event loop (below)."""


@pytest.fixture(scope="package", autouse=True)
def _orm_beside_playwright():
    """Playwright's sync API keeps an event loop running in the test's thread, and Django refuses
    ORM calls when it sees one. The tests are synchronous code, so they may make them: allowed for
    this package only (from its first test to after the last one's database flush)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="package")
def browser(_orm_beside_playwright) -> Iterator[Browser]:
    """Debian's Chromium, headless, for the tests of this package."""
    if not CHROMIUM.exists():
        pytest.fail(f"No Chromium at {CHROMIUM}: install Debian's package (apt-get install chromium), as .ci/run does.")
    playwright = sync_playwright().start()
    try:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()
    finally:
        playwright.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser context (no cookies of another test) and one page in it."""
    context = browser.new_context()
    opened = context.new_page()
    yield opened
    context.close()
