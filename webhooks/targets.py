"""What a webhook URL may be (§17): https (or http where PARLEY_WEBHOOKS_ALLOW_HTTP allows it) on the scheme's
own port (or one PARLEY_WEBHOOKS_ALLOW_PORTS adds), with a host and no credentials, whose every address is
global (webhooks.addresses). One rule for creation and delivery alike: a URL that passed at creation is
checked again before every attempt."""
from dataclasses import dataclass
from urllib.parse import urlsplit

import idna
from django.conf import settings

from webhooks.addresses import NonPublicAddress, checked_addresses

DEFAULT_PORTS = {"https": 443, "http": 80}


class BadTarget(Exception):
    """The URL is not one a webhook may be delivered to; its text says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # an IP literal without brackets, or a name in its ASCII (IDNA) form, as the wire carries it
    port: int
    path: str  # with its query
    addresses: tuple  # every address the host resolved to, all of them allowed

    @property
    def host_header(self):
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


def allowed_schemes():
    return ("https", "http") if settings.PARLEY_WEBHOOKS_ALLOW_HTTP else ("https",)


def ascii_host(host):
    """The host as DNS, TLS and the Host header name it: an internationalised name in its IDNA form
    (UTS #46, as browsers map it); BadTarget when it has none."""
    if host.isascii():
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        raise BadTarget(f"url has an invalid host name: {exc}") from None


def parsed(url, schemes=None):
    """(scheme, ASCII host, port, path with query) of `url`, or BadTarget; resolves nothing. `schemes`
    (None: the webhooks' settings) lets another fetch of a URL someone else chose use this guard."""
    schemes = schemes or allowed_schemes()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # an unbalanced IPv6 bracket, a port that is no number or out of range
        raise BadTarget(f"url is malformed: {exc}") from None
    if parts.scheme not in schemes:
        raise BadTarget(f"url must be {' or '.join(schemes)}")
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise BadTarget("url must name a host, without user or password")
    port = port or DEFAULT_PORTS[parts.scheme]
    if port != DEFAULT_PORTS[parts.scheme] and port not in settings.PARLEY_WEBHOOKS_ALLOW_PORTS:
        raise BadTarget(f"url must use port {DEFAULT_PORTS[parts.scheme]} for {parts.scheme}")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, ascii_host(parts.hostname), port, path


def target_of(url, schemes=None, allow_private=None):
    """The Target `url` names, resolved now; BadTarget when it may not be delivered to, ResolversBusy
    (webhooks.addresses) when it cannot be resolved now. `schemes` and `allow_private` (None: the webhooks'
    settings) let another fetch of a URL someone else chose use this guard (oauth's client documents)."""
    scheme, host, port, path = parsed(url, schemes)
    try:
        addresses = checked_addresses(host, port, allow_private)
    except NonPublicAddress as exc:
        raise BadTarget(f"url must be public: {exc}") from None
    return Target(scheme, host, port, path, tuple(addresses))


def loggable(url):
    """`url` without its query and fragment, which may carry the receiver's credentials: what logs show."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(a malformed url)"
    return parts._replace(query="", fragment="").geturl()

