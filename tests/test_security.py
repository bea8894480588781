"""Content-Security-Policy on every HTML page, transport security from the environment, check --deploy."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pages import InlineCode, assert_page_keeps_to_its_policy

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db


def test_the_landing_page_sends_the_policy(client):
    assert_page_keeps_to_its_policy(client.get("/", HTTP_ACCEPT="text/html"))


def test_swagger_ui_has_no_inline_script_and_its_style_carries_the_nonce(client):
    response = client.get("/api/docs/")

    assert_page_keeps_to_its_policy(response)
    page = InlineCode()
    page.feed(response.content.decode())
    assert [tag for tag, _ in page.inline] == ["style"]
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()


@pytest.mark.parametrize(
    "path",
    ["/admin/login/", "/admin/", "/admin/minds/mind/", "/admin/minds/mind/add/", "/admin/password_change/"],
)
def test_admin_pages_keep_to_the_policy(client, owner, path):
    owner.user.is_staff = owner.user.is_superuser = True
    owner.user.save()
    if path != "/admin/login/":
        client.force_login(owner.user)

    assert_page_keeps_to_its_policy(client.get(path))


def test_json_answers_carry_the_policy_too(api):
    assert "default-src 'self'" in api.get("/health")["Content-Security-Policy"]


def _settings_in_subprocess(env: dict[str, str], expression: str) -> str:
    code = f"import django; django.setup(); from django.conf import settings; print({expression})"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "memoryproject.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.slow
def test_transport_security_is_off_by_default_for_local_use():
    printed = _settings_in_subprocess(
        {"DEBUG": "true"},
        "settings.SECURE_SSL_REDIRECT, settings.SECURE_HSTS_SECONDS, settings.SESSION_COOKIE_SECURE, "
        "settings.CSRF_COOKIE_SECURE, settings.SECURE_PROXY_SSL_HEADER",
    )
    assert printed == "False 0 False False None"


@pytest.mark.slow
def test_transport_security_is_read_from_the_environment():
    printed = _settings_in_subprocess(
        {
            "DEBUG": "true",
            "SECURE_SSL_REDIRECT": "true",
            "SECURE_HSTS_SECONDS": "600",
            "SECURE_HSTS_INCLUDE_SUBDOMAINS": "yes",
            "SECURE_HSTS_PRELOAD": "1",
            "SECURE_COOKIES": "on",
            "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
        },
        "settings.SECURE_SSL_REDIRECT, settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS, "
        "settings.SECURE_HSTS_PRELOAD, settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE, "
        "settings.SECURE_PROXY_SSL_HEADER",
    )
    assert printed == "True 600 True True True True ('HTTP_X_FORWARDED_PROTO', 'https')"


def _documented_production_settings() -> dict[str, str]:
    """The `NAME=value` lines of the sh block under "Production settings" in docs/operations.md."""
    text = (ROOT / "docs" / "operations.md").read_text()
    section = text.split("### Production settings", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1)
    pairs = {}
    for line in block.splitlines():
        name, _, value = line.split("#", 1)[0].strip().partition("=")
        pairs[name] = value.strip()
    return pairs


@pytest.mark.slow
def test_check_deploy_passes_with_the_documented_production_settings():
    env = _documented_production_settings()
    assert env["SECRET_KEY"].startswith("<")  # a placeholder the operator fills in: do as it says
    env["SECRET_KEY"] = secrets.token_urlsafe(50)

    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "memoryproject.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."


@pytest.mark.slow
def test_check_deploy_names_what_is_missing_without_them():
    env = {"DEBUG": "false", "SECRET_KEY": secrets.token_urlsafe(50), "DATABASE_URL": "postgres://x@db.invalid/x"}

    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "memoryproject.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )

    found = set(re.findall(r"\(security\.(W\d+)\)", result.stdout + result.stderr))
    assert {"W004", "W008", "W012", "W016"} <= found
