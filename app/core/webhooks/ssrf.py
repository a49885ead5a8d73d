"""The SSRF guard (DESIGN §12): a destination is allowed only when every address its name
resolves to is a public unicast address. Checked when an integration is saved and again at
every connection, which then goes to the vetted address itself (no second lookup to rebind)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeDestination(Exception):
    """The destination is not allowed or cannot be reached safely; the message is user-safe."""


def refusal(ip: IPAddress) -> str | None:
    """Why `ip` is not a public destination, or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address):
        # embedded IPv4 forms would let ::ffff:127.0.0.1 or 2002:7f00:1:: reach loopback
        if ip.ipv4_mapped is not None or ip.sixtofour is not None or ip.teredo is not None:
            return "an IPv4-mapped or tunnelled address"
        if ip in ipaddress.IPv6Network("64:ff9b::/96") or ip in ipaddress.IPv6Network("64:ff9b:1::/48"):
            return "a NAT64 address"
    checks = (
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_private, "a private address"),
        (ip.is_reserved, "a reserved address"),
    )
    for hit, reason in checks:
        if hit:
            return reason
    if not ip.is_global:  # CGNAT 100.64.0.0/10 and other special-purpose ranges
        return "a non-public address"
    return None


def split_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) URL without credentials; raises UnsafeDestination."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UnsafeDestination("The URL is malformed.") from None
    if parts.scheme not in ("http", "https"):
        raise UnsafeDestination("The URL must start with http:// or https://.")
    if not parts.hostname:
        raise UnsafeDestination("The URL has no host.")
    if parts.username is not None or parts.password is not None:
        raise UnsafeDestination("The URL must not contain credentials.")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


async def resolve(host: str, port: int, *, allow_private: bool) -> list[str]:
    """Every address of `host`, all of them vetted; raises UnsafeDestination."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise UnsafeDestination(f"The host '{host[:100]}' cannot be resolved.") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise UnsafeDestination(f"The host '{host[:100]}' has no addresses.")
    if not allow_private:
        for address in addresses:
            reason = refusal(ipaddress.ip_address(address.split("%", 1)[0]))
            if reason is not None:
                raise UnsafeDestination(
                    f"The host '{host[:100]}' resolves to {reason} ({address}); only public "
                    "addresses are allowed (TDG_WEBHOOK_ALLOW_PRIVATE)."
                )
    return addresses


async def vet_url(url: str, *, allow_private: bool) -> None:
    _, host, port = split_url(url)
    await resolve(host, port, allow_private=allow_private)
