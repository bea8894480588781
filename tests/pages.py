"""The HTML pages' Content-Security-Policy, checked the same way by every page's tests."""

from __future__ import annotations

from html.parser import HTMLParser


class InlineCode(HTMLParser):
    """Inline scripts and styles with their nonce, and inline event handlers / style attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[tuple[str, str | None]] = []  # (tag, nonce)
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "style" or (tag == "script" and "src" not in named and named.get("type") != "application/json"):
            self.inline.append((tag, named.get("nonce")))
        self.attributes += [name for name, _ in attrs if name.startswith("on") or name == "style"]


def policy_of(response) -> dict[str, list[str]]:
    """The response's Content-Security-Policy, directive by directive."""
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def assert_page_keeps_to_its_policy(response) -> None:
    """An HTML page whose policy allows only its own origin and whose inline code all carries the nonce."""
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    policy = policy_of(response)
    assert policy["default-src"] == ["'self'"]
    assert "'unsafe-inline'" not in policy["script-src"] + policy["style-src"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    page = InlineCode()
    page.feed(response.content.decode())
    assert page.attributes == []
    for tag, nonce in page.inline:  # an inline block runs only with the header's nonce
        assert nonce and f"'nonce-{nonce}'" in policy[f"{tag}-src"], tag
