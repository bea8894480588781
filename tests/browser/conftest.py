"""Browser tests: Playwright for Python drives Debian's Chromium (installed by .ci/run with apt;
no browser download) against pytest-django's live server."""

from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch arguments, with Debian's Chromium instead of a downloaded one."""
    if not CHROMIUM.exists():
        pytest.fail(f"No Chromium at {CHROMIUM}: install Debian's package (apt-get install chromium), as .ci/run does.")
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


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
