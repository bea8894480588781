"""`python -m bench screenshots`: a PNG of every page of the human UI in docs/screenshots/.

A throw-away database gets a demo mind, filled through the real API of a server this command
starts (a person's memories and an agent's, verified and not, a goal, a share, log turns), its
memories promoted into the net; then Debian's Chromium, driven by Playwright, logs in and
photographs each page of PAGES at desktop width, and those marked so at phone width too.

PAGES is the one list of the UI's pages: the phone-width browser test walks the same list, so a
new page is one line here (its path with `{mind}`, `{memory}`, `{turn}` for the demo's ids).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
SCREENSHOT_DATABASE = "screenshots_synapse"
# Debian's package `chromium` puts its browser here (as tests/browser/ launches it).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
# Viewports (CSS pixels): a laptop, and a small phone (iPhone SE).
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}
# The demo's person and password (the throw-away database is dropped after the run).
DEMO_EMAIL = "demo@example.com"
DEMO_READER = "reader@example.com"
DEMO_PASSWORD = "screenshot-" + secrets.token_urlsafe(12)


@dataclass(frozen=True)
class UiPage:
    name: str  # the file stem in docs/screenshots/
    path: str  # with {mind}, {memory}, {turn}
    phone: bool = False  # also photographed at phone width
    logged_in: bool = True
    ready: str = ""  # a CSS selector to wait for before the picture (a page that draws with JavaScript)

    def url(self, ids: Mapping[str, str]) -> str:
        return self.path.format(**ids)


PAGES: list[UiPage] = [
    UiPage("login", "/accounts/login/", logged_in=False),
    UiPage("register", "/accounts/register/", logged_in=False),
    UiPage("password", "/accounts/password/"),
    UiPage("dashboard", "/app/", phone=True),
    UiPage("mind", "/app/minds/{mind}/", phone=True),
    UiPage("mind-search", "/app/minds/{mind}/?q=sister"),
    UiPage("memory-new", "/app/minds/{mind}/memories/new/"),
    UiPage("review-queue", "/app/minds/{mind}/unverified/", phone=True),
    UiPage("memory", "/app/memories/{memory}/", phone=True),
    UiPage("memory-edit", "/app/memories/{memory}/edit/"),
    UiPage("net", "/app/minds/{mind}/net/", phone=True, ready="#net[data-drawn]"),
    UiPage("entities", "/app/minds/{mind}/entities/"),
    UiPage("recall", "/app/minds/{mind}/recall/?q=sister"),
    UiPage("webhooks", "/app/minds/{mind}/webhooks/"),
    UiPage("goals", "/app/minds/{mind}/goals/"),
    UiPage("profile", "/app/minds/{mind}/profile/"),
    UiPage("transfer", "/app/minds/{mind}/transfer/"),
    UiPage("compact", "/app/minds/{mind}/compact/"),
    UiPage("keys", "/app/minds/{mind}/keys/", phone=True),
    UiPage("log", "/app/log/"),
    UiPage("turn", "/app/log/{turn}/"),
]

# The demo mind's memories: (who writes it, fields). "user" is the person (source user,
# verified), "agent" the Mind Key (unverified until the person verifies it).
DEMO_MEMORIES = [
    ("user", {"category": "identity", "key": "name", "content": "I am Michael; I work as a carpenter in Leipzig."}),
    ("user", {"category": "preference", "key": "answers", "content": "Prefers short answers without small talk."}),
    ("agent", {"category": "fact", "key": "anna", "content": "Anna is Michael's sister; she lives in Vienna.",
               "tags": ["family"], "entities": ["Anna", "Vienna"]}),
    ("agent", {"category": "fact", "key": "bike", "content": "Michael rides his bike to the workshop every day.",
               "tags": ["routine"]}),
    ("agent", {"category": "project", "key": "kitchen", "tags": ["work", "kitchen"], "priority": "high",
               "content": "Building an oak kitchen for the Weber family, due in March."}),
    ("agent", {"category": "context", "key": "trip", "content": "Plans to visit Anna in Vienna over Easter.",
               "tags": ["family", "travel"], "entities": ["Anna", "Vienna"]}),
    ("agent", {"category": "skill", "key": "dovetail", "content": "Cuts hand dovetails; prefers Japanese saws.",
               "tags": ["work"]}),
]  # fmt: skip


def _setup() -> None:
    """Django on the real settings, with the hashing embedder and the log written at once."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "memoryproject.settings"
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "screenshots-" + secrets.token_urlsafe(40))
    os.environ["SYNAPSE_EMBEDDER"] = "hashing"
    os.environ["WORKER_SYNC"] = "false"  # promotion runs below, not per write
    os.environ["PIPELINE_LOG_SYNC"] = "true"  # the log pages show the seeding's turns at once
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
    os.environ["TQDM_DISABLE"] = "1"  # the promote command's progress bar
    import logging

    import django

    django.setup()
    # django-q2 logs every enqueued task at INFO, the server every 404 (the browser's favicon).
    logging.getLogger("django-q").setLevel(logging.WARNING)
    logging.getLogger("django.request").setLevel(logging.ERROR)


def _server():
    """This process's app in a thread on a free port (the static files through whitenoise)."""
    from django.test.testcases import LiveServerThread

    # The thread wraps the app in a static-files handler; whitenoise (a middleware) serves them already.
    thread = LiveServerThread("127.0.0.1", lambda app: app, port=0)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    return thread, f"http://127.0.0.1:{thread.port}"


def _api(session, base: str, method: str, path: str, token: str, body: dict | None = None) -> dict:
    """One call of the API; its JSON answer ({} for an empty or a text one, as recall's)."""
    response = session.request(method, base + path, json=body, headers={"Authorization": f"Bearer {token}"})
    if response.status_code >= 400:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:300]}")
    return response.json() if response.headers.get("Content-Type", "").startswith("application/json") else {}


def demo_seed(base: str) -> dict[str, str]:
    """The demo mind, filled over HTTP as people and agents fill it; its ids for PAGES."""
    import requests
    from django.core.management import call_command

    from memories.models import Memory
    from minds.services import user_register

    user_register(email=DEMO_EMAIL, password=DEMO_PASSWORD)
    user_register(email=DEMO_READER, password=DEMO_PASSWORD)
    http = requests.Session()
    jwt = _api(http, base, "POST", "/login", "", {"email": DEMO_EMAIL, "password": DEMO_PASSWORD})["access"]
    about = {"name": "Michael's assistant", "description": "The memory of Michael's everyday assistant."}
    created = _api(http, base, "POST", "/minds", jwt, about)
    mind, key = created["id"], created["mind_key"]
    ids = []
    for writer, fields in DEMO_MEMORIES:
        token, path = (jwt, f"/memory?mind={mind}") if writer == "user" else (key, "/memory")
        ids.append(_api(http, base, "POST", path, token, fields)["id"])
    _api(http, base, "POST", f"/memory/{ids[2]}/verify?mind={mind}", jwt)
    _api(http, base, "POST", f"/synapses/goals?mind={mind}", jwt,
         {"statement": "Finish the Weber kitchen by March", "motivation": 0.8})  # fmt: skip
    _api(http, base, "POST", f"/synapses/goals?mind={mind}", jwt,
         {"statement": "Learn to sharpen Japanese saws", "motivation": 0.4, "active": False})  # fmt: skip
    _api(http, base, "POST", f"/minds/{mind}/share", jwt, {"user_email": DEMO_READER, "acl": "read"})
    _api(http, base, "POST", f"/minds/{mind}/keys", jwt, {"label": "laptop agent"})
    _api(http, base, "GET", "/memory/recall?q=Where+does+Anna+live%3F", key)
    with open(os.devnull, "w") as quiet:
        call_command("promote", now=True, stdout=quiet)  # the net: knots for the profile and the net's pages
    return {"mind": mind, "memory": ids[2], "turn": Memory.objects.get(pk=ids[2]).turn_id}


def _log_in(page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Email").fill(DEMO_EMAIL)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/app/")


def photograph(base: str, ids: Mapping[str, str], out: Path, pages: list[UiPage]) -> list[Path]:
    """Every page at desktop width (and phone width where marked), full length, as PNG."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for width_name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            context = browser.new_context(viewport=viewport, device_scale_factor=1)
            anonymous, person = context.new_page(), None
            for ui_page in pages:
                if width_name == "phone" and not ui_page.phone:
                    continue
                if ui_page.logged_in and person is None:
                    person = context.new_page()
                    _log_in(person, base)
                tab = person if ui_page.logged_in else anonymous
                if not ui_page.logged_in:
                    context.clear_cookies()
                    person = None
                tab.goto(base + ui_page.url(ids))
                if ui_page.ready:
                    tab.wait_for_selector(ui_page.ready)
                path = out / f"{ui_page.name}-{width_name}.png"
                tab.screenshot(path=str(path), full_page=True)
                written.append(path)
            context.close()
        browser.close()
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SCREENSHOTS, help="where the PNGs go (default docs/screenshots/)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these pages (names of PAGES)")
    args = parser.parse_args(argv)
    pages = [page for page in PAGES if not args.only or page.name in args.only]
    if not CHROMIUM.exists():
        print(f"No Chromium at {CHROMIUM}: apt-get install chromium (as .ci/run does).", file=sys.stderr)
        return 1
    _setup()
    # Playwright's event loop runs in this thread; the ORM calls here are synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from bench.database import database_create, database_drop

    started = time.perf_counter()
    database_create(SCREENSHOT_DATABASE)
    server = None
    try:
        server, base = _server()
        ids = demo_seed(base)
        written = photograph(base, ids, args.out, pages)
    finally:
        if server is not None:
            server.terminate()
        database_drop(SCREENSHOT_DATABASE)
    total = sum(path.stat().st_size for path in written)
    print(f"{len(written)} screenshots, {total / 1024:.0f} KiB, in {args.out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
