"""§17's SSRF guard: which addresses a webhook may reach, in every form an address takes, and names that
resolve to any address that is not global."""
import ipaddress

import pytest

from webhooks.addresses import NonPublicAddress, checked_addresses, is_global


@pytest.mark.parametrize("address, public", [
    ("93.184.215.14", True),
    ("8.8.8.8", True),
    ("2606:4700:4700::1111", True),
    ("127.0.0.1", False),  # loopback
    ("10.0.0.1", False),  # private
    ("172.16.0.1", False),
    ("192.168.1.1", False),
    ("100.64.0.1", False),  # carrier-grade NAT
    ("100.127.255.254", False),
    ("169.254.169.254", False),  # link-local: the cloud metadata service
    ("0.0.0.0", False),  # unspecified
    ("224.0.0.1", False),  # multicast
    ("239.255.255.250", False),
    ("240.0.0.1", False),  # reserved
    ("255.255.255.255", False),
    ("192.0.2.1", False),  # documentation
    ("198.18.0.1", False),  # benchmarking
    ("::1", False),
    ("::", False),
    ("fe80::1", False),  # link-local
    ("fd00:ec2::254", False),  # unique local: the cloud metadata service over IPv6
    ("fc00::1", False),
    ("ff02::1", False),  # multicast
    ("2001:db8::1", False),  # documentation
    ("::ffff:127.0.0.1", False),  # IPv4-mapped forms
    ("::ffff:10.0.0.1", False),
    ("::ffff:169.254.169.254", False),
    ("::ffff:8.8.8.8", True),
    ("64:ff9b::7f00:1", False),  # NAT64 of 127.0.0.1
    ("64:ff9b::a9fe:a9fe", False),  # NAT64 of 169.254.169.254
    ("64:ff9b::808:808", True),  # NAT64 of 8.8.8.8
    ("64:ff9b:1::808:808", False),  # local-use NAT64
    ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
    ("2002:a00:1::1", False),  # 6to4 of 10.0.0.1
    ("2002:808:808::1", True),  # 6to4 of 8.8.8.8
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
    # IANA's special-purpose blocks, each one Python's is_global lets through in some version
    ("192.0.0.8", False),  # the IPv4 dummy address
    ("192.0.0.9", False),  # PCP anycast
    ("192.0.0.10", False),  # TURN anycast
    ("192.88.99.1", False),  # the deprecated 6to4 relay anycast
    ("2002:c058:6301::1", False),  # 6to4 of it
    ("192.31.196.1", False),  # AS112
    ("192.52.193.1", False),  # AMT
    ("192.175.48.1", False),  # AS112 direct delegation
    ("2001:1::1", False),  # PCP anycast
    ("2001:1::3", False),  # DNS-SD SRP anycast
    ("2001:3::1", False),  # AMT
    ("2001:4:112::1", False),  # AS112
    ("2001:20::1", False),  # ORCHIDv2
    ("2001:30::1", False),  # DRIP
    ("2620:4f:8000::1", False),  # AS112 direct delegation
    ("3fff::1", False),  # documentation
    ("5f00::1", False),  # SRv6 SIDs
    ("100:0:0:1::1", False),  # the IPv6 dummy prefix
    ("fec0::1", False),  # site-local
])
def test_only_global_addresses_in_every_form_are_public(address, public):
    assert is_global(ipaddress.ip_address(address)) is public


def test_a_resolver_that_never_answers_is_given_up_after_resolve_seconds(monkeypatch):
    """The lowest call of ours that waits on the network (addresses.lookup, around getaddrinfo) is made to
    wait as a resolver that never answers would: the machine's resolver stays the other processes'."""
    import threading
    import time

    from webhooks import addresses

    released = threading.Event()
    monkeypatch.setattr(addresses, "RESOLVE_SECONDS", 0.3)
    monkeypatch.setattr(addresses, "lookup", lambda host, port: released.wait(30) and [])
    try:
        started = time.monotonic()
        with pytest.raises(NonPublicAddress, match="does not resolve within 0.3 s"):
            checked_addresses("silent.example", 443)
        assert time.monotonic() - started < 1
        for _ in range(addresses.RESOLVERS - 1):  # the first lookup still holds its resolver thread
            with pytest.raises(NonPublicAddress):
                checked_addresses("silent.example", 443)
        with pytest.raises(addresses.ResolversBusy):  # every resolver thread waits: refused at once
            checked_addresses("silent.example", 443)
    finally:
        released.set()
        # The held lookups end on their threads a moment later: the next test of this worker needs them free.
        for _ in range(addresses.RESOLVERS):
            assert addresses._free_lookups.acquire(timeout=5)
        for _ in range(addresses.RESOLVERS):
            addresses._free_lookups.release()


@pytest.mark.parametrize("host", ["localhost", "127.1", "0x7f.0.0.1", "2130706433", "017700000001"])
def test_a_name_or_number_that_resolves_to_loopback_is_refused(host, settings):
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = False
    with pytest.raises(NonPublicAddress):
        checked_addresses(host, 443)


def test_a_name_with_one_private_address_among_public_ones_is_refused(monkeypatch, settings):
    import socket

    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = False
    answers = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443)),
               (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::ffff:10.0.0.1", 443, 0, 0))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: answers)
    with pytest.raises(NonPublicAddress, match="non-public ::ffff:a00:1"):
        checked_addresses("rebinding.example", 443)


def test_the_operator_may_allow_non_public_addresses(settings):
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = True
    assert ipaddress.ip_address("127.0.0.1") in checked_addresses("localhost", 443)
