"""Where a webhook may point (pure: no Django): the SSRF guard.

A hook's URL is refused when its host resolves to an address of the server's own network
(private, loopback, link-local, reserved, multicast, unspecified, shared carrier-grade NAT),
so a mind's owner cannot make the server call into it. One such address among the host's
addresses is enough to refuse: the connection could go to any of them. The check runs when the
hook is saved and again before every delivery, because a name's addresses can change.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

ALLOWED_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}


class AddressRefused(ValueError):
    """The URL may not be called; the message says why and what is allowed."""


@dataclass(frozen=True)
class AddressPolicy:
    allow_private: bool  # every non-public address (operators' own networks)
    allow_loopback: bool  # 127.0.0.0/8 and ::1 only (local use)


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _non_public_kind(address: IPAddress) -> str | None:
    """What makes `address` non-public ("loopback", "private", …), or None for a public one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_unspecified:
        return "unspecified"
    if address.is_reserved:
        return "reserved"
    if address.is_private or not address.is_global:  # not global: 100.64.0.0/10 and the like
        return "private"
    return None


def host_addresses(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to (an IP literal resolves to itself)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise AddressRefused(f"The host {host!r} does not resolve ({error}).") from None
    return [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]


def url_check(url: str, policy: AddressPolicy) -> None:
    """AddressRefused unless `url` is http(s) with a host whose every address the policy allows."""
    if any(character.isspace() or not character.isprintable() for character in url):
        raise AddressRefused("Put no spaces or control characters in the URL; percent-encode them.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise AddressRefused(f"Not a valid URL ({error}).") from None
    if parts.scheme not in ALLOWED_SCHEMES:
        raise AddressRefused("Use an http:// or https:// URL.")
    if not parts.hostname:
        raise AddressRefused("The URL has no host.")
    if parts.username is not None or parts.password is not None:
        raise AddressRefused("Put no user or password in the URL; the signature authenticates the server.")
    if policy.allow_private:
        return
    for address in host_addresses(parts.hostname, port or DEFAULT_PORTS[parts.scheme]):
        kind = _non_public_kind(address)
        if kind is None or (kind == "loopback" and policy.allow_loopback):
            continue
        raise AddressRefused(
            f"The host {parts.hostname!r} resolves to the {kind} address {address}; webhooks may only call "
            "public addresses (an operator can allow private ones with SYNAPSE_WEBHOOKS_ALLOW_PRIVATE)."
        )
