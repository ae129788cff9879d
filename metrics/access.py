"""Who may read /metrics: the bearer of PARLEY_METRICS_TOKEN, or a socket peer in PARLEY_METRICS_ALLOW.

The peer is the address the connection came from, never one a header names. uvicorn rewrites the address
Django sees from X-Forwarded-For when the peer is a trusted proxy (FORWARDED_ALLOW_IPS), so a request that
carries such a header cannot show its socket peer and is never let in by address: Prometheus scrapes each
app server directly, and a scrape through a proxy uses the token."""
import hmac
import ipaddress

from django.conf import settings

PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED")


def may_read_metrics(request):
    return bearer_matches(request) or peer_allowed(request)


def bearer_matches(request):
    expected = settings.PARLEY_METRICS_TOKEN
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if not expected or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), expected.encode())  # in constant time


def peer_allowed(request):
    if not settings.PARLEY_METRICS_ALLOW or any(name in request.META for name in PROXY_HEADERS):
        return False
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:  # a Unix socket, or no peer at all
        return False
    if peer.version == 6 and peer.ipv4_mapped is not None:
        peer = peer.ipv4_mapped
    return any(peer in network for network in settings.PARLEY_METRICS_ALLOW)
