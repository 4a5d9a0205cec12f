"""Requests the server makes to addresses its users give it (webhooks, chat notifications): the
guard against server-side request forgery.

A user-given URL may name any host; left alone, the server would post to its own API, to the
database's port or to the cloud's metadata service and tell the user what came back. So every
outbound URL passes ``OutboundPolicy.vet``: its host is resolved (numeric spellings too —
``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``[::ffff:127.0.0.1]`` — are read as the address they
are), and *every* address it resolves to must be public: not loopback, private, link-local,
multicast, reserved, unspecified or shared (an IPv6 address that embeds an IPv4 one — mapped,
6to4, Teredo, NAT64 — is judged by that IPv4 address). The answer, a ``VettedTarget``, holds the
addresses that passed, and ``post`` connects to one of *those* (it never resolves the name again,
so a name that changes its answer between the check and the connection — DNS rebinding — gains
nothing), with the URL's host in ``Host`` and in TLS's server name, and follows no redirect.

The operator's ``GAMELEDGER_OUTBOUND_ALLOW`` lists the exceptions: host names (exactly, any case)
and networks (``10.1.0.0/16``, ``127.0.0.1``) whose addresses may be reached anyway.

Call ``vet`` when the URL is saved (a refusal is a 422 with the refusal's code) and ``post`` (which
vets again) when it is used.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import socket
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ledger.errors import InvalidRequestError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]
"""host, port -> the addresses the host resolves to (raises OSError when it does not)."""

BAD_URL = "request/outbound_bad_url"
NOT_PUBLIC = "request/outbound_not_public"
UNRESOLVABLE = "request/outbound_unresolvable"

NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT: not private, not public


class OutboundRefused(InvalidRequestError):
    """An outbound URL the server will not reach; ``code`` is stable, ``reason`` is for people."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason, code=code)
        self.reason = reason


@dataclass(frozen=True)
class VettedTarget:
    """A URL whose host resolved only to addresses the policy lets the server reach."""

    url: str
    scheme: str
    host: str
    port: int
    path: str  # path and query, as sent in the request line
    addresses: tuple[str, ...]


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def numeric_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The address of the spellings ``inet_aton`` accepts (``127.1``, ``2130706433``, ``0177.0.0.1``,
    ``0x7f.0.0.1``), or None when ``host`` is not one of them."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values = []
    for part in parts:
        text = part.lower()
        try:
            if text.startswith("0x"):
                values.append(int(text[2:] or "0", 16))
            elif len(text) > 1 and text.startswith("0"):
                values.append(int(text[1:], 8))
            elif text.isdigit():
                values.append(int(text))
            else:
                return None
        except ValueError:
            return None
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        return None
    number = last
    for i, v in enumerate(head):
        number += v << (8 * (3 - i))
    return ipaddress.IPv4Address(number)


def literal_address(host: str) -> IPAddress | None:
    """``host`` when it is an address however spelt, else None (a name)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host.split("%", 1)[0])  # a zone: fe80::1%eth0
        except ValueError:
            return None
    return numeric_ipv4(host)


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def not_public(address: IPAddress) -> str | None:
    """What kind of address this is when the server must not reach it, else None."""
    inner = embedded_ipv4(address)
    if inner is not None:
        kind = not_public(inner)
        return f"{kind}, inside {address}" if kind else None
    for kind, flag in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
        ("shared", isinstance(address, ipaddress.IPv4Address) and address in SHARED),
        ("not public", not address.is_global),
    ):
        if flag:
            return kind
    return None


def parse_allow(text: str | Iterable[str]) -> tuple[frozenset[str], tuple[IPNetwork, ...]]:
    """``GAMELEDGER_OUTBOUND_ALLOW``: host names and networks, separated by commas or spaces."""
    entries = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    hosts: set[str] = set()
    networks: list[IPNetwork] = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            continue
        except ValueError:
            pass
        name = entry.lower().rstrip(".")
        if not name or "/" in name or not all(part.replace("-", "").isalnum() for part in name.split(".")):
            raise ValueError(f"{entry!r} is neither a host name nor a network (10.0.0.0/8, 127.0.0.1, ::1)")
        hosts.add(name)
    return frozenset(hosts), tuple(networks)


@dataclass(frozen=True)
class OutboundPolicy:
    allow_hosts: frozenset[str] = frozenset()
    allow_networks: tuple[IPNetwork, ...] = ()
    resolver: Resolver = field(default=system_resolver, compare=False)

    @classmethod
    def from_settings(cls, settings: Any, resolver: Resolver = system_resolver) -> OutboundPolicy:
        hosts, networks = parse_allow(getattr(settings, "outbound_allow", "") or "")
        return cls(hosts, networks, resolver)

    def allowed(self, address: IPAddress) -> bool:
        candidates = [address]
        inner = embedded_ipv4(address)
        if inner is not None:
            candidates.append(inner)
        return any(a in net for a in candidates for net in self.allow_networks if a.version == net.version)

    def vet(self, url: str, *, unresolved_ok: bool = False) -> VettedTarget:
        """The target of ``url`` when the server may reach it; else ``OutboundRefused``.

        With ``unresolved_ok`` (used when a URL is saved) a name that does not resolve is let
        through: it is vetted again, resolved, when it is used."""
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError as exc:
            raise OutboundRefused(BAD_URL, f"Not a usable URL: {exc}.") from None
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").rstrip(".")
        if scheme not in ("http", "https") or not host:
            raise OutboundRefused(BAD_URL, "An outbound URL is http(s)://host[:port]/path.")
        port = port or (443 if scheme == "https" else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        literal = literal_address(host)
        if literal is not None:
            addresses = [literal]
        else:
            try:
                addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in self.resolver(host, port)]
            except (OSError, UnicodeError, ValueError):
                addresses = []
            if not addresses:
                if unresolved_ok:
                    return VettedTarget(url, scheme, host, port, path, ())
                raise OutboundRefused(UNRESOLVABLE, f"The host {host} does not resolve.")
        if host.lower() not in self.allow_hosts:
            for address in addresses:
                kind = not_public(address)
                if kind and not self.allowed(address):
                    shown = host if literal is None else url
                    raise OutboundRefused(
                        NOT_PUBLIC,
                        f"{shown} resolves to {address} ({kind}); the server does not reach such addresses "
                        "(the operator's GAMELEDGER_OUTBOUND_ALLOW lists exceptions).",
                    )
        return VettedTarget(url, scheme, host, port, path, tuple(str(a) for a in addresses))

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float = 5.0) -> int:
        """POST ``body`` to ``url`` after vetting it; the status (a redirect is not followed, the
        answer's body is not read). Raises ``OutboundRefused`` or ``OSError``."""
        return send(self.vet(url), "POST", body, headers, timeout)


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, target: VettedTarget, address: str, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


@functools.cache
def default_tls_context() -> ssl.SSLContext:
    """The system's certificate authorities, loaded once a process. A mail transport is made
    for every round of the drain that finds a mail due, and a connection for every webhook or
    chat post: loading them cost 10 to 30 ms of processor time each time. One context serves
    any number of connections."""
    return ssl.create_default_context()


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: VettedTarget, address: str, timeout: float) -> None:
        self.tls = default_tls_context()
        super().__init__(target.host, target.port, timeout=timeout, context=self.tls)
        self.address = address

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(raw, server_hostname=self.host)  # the name's certificate


def send(
    target: VettedTarget, method: str, body: bytes, headers: dict[str, str], timeout: float = 5.0
) -> int:
    """Send to the first of the target's vetted addresses that answers; the status."""
    if not target.addresses:
        raise OutboundRefused(UNRESOLVABLE, f"The host {target.host} does not resolve.")
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    failure: OSError | None = None
    for address in target.addresses:
        connection = kind(target, address, timeout)
        try:
            connection.request(method, target.path, body=body, headers=headers)
            return int(connection.getresponse().status)
        except OSError as exc:
            failure = exc
        finally:
            connection.close()
    assert failure is not None
    raise failure


def describe_failure(exc: BaseException) -> str:
    """A short reason for a delivery log: never the target's answer, and no more detail than needed."""
    if isinstance(exc, OutboundRefused):
        return f"refused: {exc.reason}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ssl.SSLError):
        return "TLS failed"
    if isinstance(exc, http.client.HTTPException):
        return "not an HTTP answer"
    if isinstance(exc, OSError):
        return "network error"
    return type(exc).__name__
