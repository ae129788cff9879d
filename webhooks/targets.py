"""What a webhook's URL must be (§17): https (or http where PARLEY_WEBHOOKS_ALLOW_HTTP allows it), with a
host and no credentials, whose every address is global (webhooks.addresses). One rule for creation and
delivery alike: a URL that passed at creation is checked again before every attempt."""
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from webhooks.addresses import NonPublicAddress, checked_addresses

DEFAULT_PORTS = {"https": 443, "http": 80}


class BadTarget(Exception):
    """The URL is not one a webhook may be delivered to; its text says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as written (a name, or an IP literal without brackets)
    port: int
    path: str  # with its query
    addresses: tuple  # every address the host resolved to, all of them allowed

    @property
    def host_header(self):
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


def allowed_schemes():
    return ("https", "http") if settings.PARLEY_WEBHOOKS_ALLOW_HTTP else ("https",)


def target_of(url, schemes=None, allow_private=None):
    """The Target `url` names, resolved now; BadTarget when it may not be delivered to. `schemes` and
    `allow_private` (None: the webhooks' settings) let another fetch of a URL someone else chose use this
    guard (oauth's client documents)."""
    parts, schemes = urlsplit(url), schemes or allowed_schemes()
    if parts.scheme not in schemes:
        raise BadTarget(f"url must be {' or '.join(schemes)}")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise BadTarget("url has an invalid port") from None
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise BadTarget("url must name a host, without user or password")
    try:
        addresses = checked_addresses(parts.hostname, port, allow_private)
    except NonPublicAddress as exc:
        raise BadTarget(f"url must be public: {exc}") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port, path, tuple(addresses))
