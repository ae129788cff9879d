"""Where a webhook may point (Parley v1 §17): only at global addresses, in every form an address can take,
unless the operator allows non-public targets (PARLEY_WEBHOOKS_ALLOW_PRIVATE, for tests and intranets).

A name is resolved at creation and again at every delivery, and every address it resolves to must be
global: a name with one private address among public ones is refused, since the client might connect to
that one (DNS rebinding). The delivery then connects to an address checked here (webhooks.sending)."""
import ipaddress
import socket

from django.conf import settings

# Forms that carry an IPv4 address inside an IPv6 one: the embedded address is what the packets reach.
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052, the well-known prefix
# Ranges Python's `is_global` lets through that no public webhook target lives in.
NOT_GLOBAL = [
    ipaddress.ip_network("64:ff9b:1::/48"),  # RFC 8215, local-use NAT64
    ipaddress.ip_network("100.64.0.0/10"),  # RFC 6598, carrier-grade NAT
]


class NonPublicAddress(Exception):
    """The host is, or resolves to, an address that is not global (or does not resolve at all)."""


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
    if address.version == 6 and address.teredo is not None:  # a tunnel whose far end the address hides
        return False
    if address.is_multicast or address.is_reserved or address.is_unspecified or address.is_link_local:
        return False
    return address.is_global and not any(address in network for network in NOT_GLOBAL
                                         if network.version == address.version)


def resolve(host, port):
    """Every address `host` resolves to (an IP literal resolves to itself), or NonPublicAddress."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
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
