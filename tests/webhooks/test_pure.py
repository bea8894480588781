"""The pure parts: event patterns, the signature, the back-off and the address classes."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from webhooks.addresses import AddressPolicy, AddressRefused, url_check
from webhooks.backoff import retry_delay_seconds
from webhooks.events import EVENT_PATTERNS, WebhookEvent, pattern_matches
from webhooks.signing import signature_of, signature_valid

PRODUCTION = AddressPolicy(allow_private=False, allow_loopback=False)
LOCAL = AddressPolicy(allow_private=False, allow_loopback=True)


def test_the_patterns_are_every_event_each_family_and_each_event():
    assert EVENT_PATTERNS == (
        "*",
        "knot.*",
        "memory.*",
        "memory.created",
        "memory.updated",
        "memory.deleted",
        "memory.verified",
        "memory.unverified",
        "knot.created",
        "knot.reinforced",
    )


@pytest.mark.parametrize(
    ("pattern", "event", "matches"),
    [
        ("*", "memory.created", True),
        ("*", "knot.reinforced", True),
        ("memory.*", "memory.deleted", True),
        ("memory.*", "knot.created", False),
        ("knot.*", "knot.created", True),
        ("memory.created", "memory.created", True),
        ("memory.created", "memory.updated", False),
        ("memory.*", "memoryx.created", False),
    ],
)
def test_a_pattern_matches_its_events_only(pattern, event, matches):
    assert pattern_matches(pattern, event) is matches


def test_the_signature_is_the_hex_hmac_sha256_of_the_body_with_the_secret():
    body = b'{"event":"memory.created"}'
    expected = hmac.new(b"s3cret-s3cret-s3cret", body, hashlib.sha256).hexdigest()
    assert signature_of(body, "s3cret-s3cret-s3cret") == "sha256=" + expected
    assert signature_valid(body, "s3cret-s3cret-s3cret", "sha256=" + expected)
    assert not signature_valid(body + b" ", "s3cret-s3cret-s3cret", "sha256=" + expected)
    assert not signature_valid(body, "another-secret-xx", "sha256=" + expected)


def test_each_retry_waits_twice_as_long_as_the_one_before():
    assert [retry_delay_seconds(n, first_delay_seconds=30) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    with pytest.raises(ValueError):
        retry_delay_seconds(0, first_delay_seconds=30)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8000/hook",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://172.16.5.5/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://100.64.0.1/hook",
        "http://0.0.0.0/hook",
        "http://240.0.0.1/hook",
        "http://[fd00::1]/hook",
        "http://[fe80::1]/hook",
    ],
)
def test_an_address_of_the_servers_own_network_is_refused_in_production(url):
    with pytest.raises(AddressRefused, match="webhooks may only call public addresses"):
        url_check(url, PRODUCTION)


def test_local_use_allows_loopback_but_not_private_networks():
    url_check("http://127.0.0.1:9000/hook", LOCAL)
    url_check("http://[::1]:9000/hook", LOCAL)
    with pytest.raises(AddressRefused, match="private"):
        url_check("http://10.0.0.1/hook", LOCAL)
    with pytest.raises(AddressRefused, match="link-local"):
        url_check("http://169.254.169.254/", LOCAL)


def test_an_operator_may_allow_every_private_address():
    url_check("http://10.0.0.1/hook", AddressPolicy(allow_private=True, allow_loopback=False))


def test_a_public_address_is_allowed():
    url_check("https://93.184.215.14/hook", PRODUCTION)
    url_check("http://[2606:4700::1111]/hook", PRODUCTION)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://93.184.215.14/x", "http:// or https://"),
        ("file:///etc/passwd", "http:// or https://"),
        ("http:///nohost", "no host"),
        ("http://user:pw@93.184.215.14/", "no user or password"),
        ("http://93.184.215.14:99999/", "Not a valid URL"),
        ("http://no-such-host.invalid/hook", "does not resolve"),
        ("http://93.184.215.14/a b", "no spaces or control characters"),
        ("http://93.184.215.14/a\r\nX-Injected: 1", "no spaces or control characters"),
    ],
)
def test_a_url_that_is_no_http_url_of_a_resolvable_host_is_refused(url, message):
    with pytest.raises(AddressRefused, match=message):
        url_check(url, PRODUCTION)


def test_every_event_has_a_family_pattern():
    families = {pattern for pattern in EVENT_PATTERNS if pattern.endswith(".*")}
    assert {event.value.split(".")[0] + ".*" for event in WebhookEvent} == families
