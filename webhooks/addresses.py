"""Where a webhook may point (Parley v1 §17): only at global addresses, in every form an address can take,
unless the operator allows non-public targets (PARLEY_WEBHOOKS_ALLOW_PRIVATE, for tests and intranets).

A name is resolved at creation and again at every delivery, and every address it resolves to must be
global: a name with one private address among public ones is refused, since the client might connect to
that one (DNS rebinding). The delivery then connects to an address checked here (webhooks.sending).

Resolving waits at most RESOLVE_SECONDS, on threads of its own (RESOLVERS): a resolver that never answers
holds neither a request's thread nor a worker's attempt for longer, and at most RESOLVERS lookups run at once
in a process, however many requests ask."""
import ipaddress
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late

from django.conf import settings

RESOLVE_SECONDS = 2.0
RESOLVERS = 4
_lookups = ThreadPoolExecutor(max_workers=RESOLVERS, thread_name_prefix="parley-resolve")
_free_lookups = threading.BoundedSemaphore(RESOLVERS)

# Forms that carry an IPv4 address inside an IPv6 one: the embedded address is what the packets reach.
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052, the well-known prefix
# Every block of IANA's IPv4 and IPv6 Special-Purpose Address Registries, but the forms above (checked by the
# address they carry), refused whatever Python's `is_global` says of them in this Python's version: several
# are marked globally reachable (anycast services, AS112, AMT), and no webhook receiver lives in any of them.
SPECIAL_PURPOSE = [ipaddress.ip_network(block) for block in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24",  # IETF protocol assignments: DS-Lite, the dummy address, PCP and TURN anycast, NAT64 discovery
    "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24",  # documentation, AS112, AMT
    "192.88.99.0/24",  # the deprecated 6to4 relay anycast
    "192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
    "::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64",
    "2001::/23",  # IETF protocol assignments: Teredo, PCP, TURN and DNS-SD anycast, AMT, AS112, ORCHID, DRIP
    "2001:db8::/32", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
    "fec0::/10",  # site-local, deprecated (RFC 3879) but still routed inside some networks
)]


class NonPublicAddress(Exception):
    """The host is, or resolves to, an address that is not global (or does not resolve in time)."""


class ResolversBusy(Exception):
    """Every resolver thread of this process is waiting on a lookup: try again later."""


def embedded_ipv4(address):
    """The IPv4 address an IPv6 one stands for (mapped, NAT64, 6to4), or None."""
    if address.version != 6:
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def is_global(address):
    """Is `address` (an ipaddress object) one a public webhook may be delivered to?"""
    inner = embedded_ipv4(address)
    if inner is not None:
        return is_global(inner)
    if address.is_multicast or address.is_reserved or address.is_unspecified or address.is_link_local:
        return False
    return address.is_global and not any(address in block for block in SPECIAL_PURPOSE
                                         if block.version == address.version)


def lookup(host, port):
    """The system resolver's answer (getaddrinfo): the one call that may wait on the network."""
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def _lookup_and_free(host, port):
    try:
        return lookup(host, port)
    finally:
        _free_lookups.release()


def resolve(host, port):
    """Every address `host` resolves to (an IP literal resolves to itself), or NonPublicAddress when it does
    not resolve within RESOLVE_SECONDS; ResolversBusy when every resolver thread is taken."""
    if not _free_lookups.acquire(blocking=False):
        raise ResolversBusy(f"{RESOLVERS} host names are being resolved already")
    try:
        found = _lookups.submit(_lookup_and_free, host, port).result(timeout=RESOLVE_SECONDS)
    except Late:
        raise NonPublicAddress(f"{host} does not resolve within {RESOLVE_SECONDS:g} s") from None
    except (socket.gaierror, UnicodeError) as exc:
        raise NonPublicAddress(f"{host} does not resolve: {exc}") from None
    # getaddrinfo parses every spelling of a number ("2130706433", "0x7f.1") into the address it means.
    addresses = []
    for *_, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0].split("%")[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def checked_addresses(host, port, allow_private=None):
    """The addresses of `host` a delivery may connect to: all of them global, or NonPublicAddress. With
    `allow_private` (None: PARLEY_WEBHOOKS_ALLOW_PRIVATE) every address is allowed."""
    addresses = resolve(host, port)
    if not (settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE if allow_private is None else allow_private):
        refused = [str(address) for address in addresses if not is_global(address)]
        if refused:
            raise NonPublicAddress(f"{host} resolves to non-public {', '.join(refused)}")
    return addresses
