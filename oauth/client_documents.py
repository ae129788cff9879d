"""Client ID Metadata Documents (MCP authorization, Client Registration): a client whose client_id is an
https URL is described by the JSON document at that URL, which this server fetches when it first meets the
client (django-oauth-toolkit's CIMD support calls `GuardedFetcher.fetch`).

The URL is the client's to choose, so the fetch goes through the webhooks' guard against server-side
request forgery (webhooks.addresses, webhooks.targets): https only, every address the name resolves to
public unless PARLEY_OAUTH_ALLOW_PRIVATE, the connection pinned to a checked address, no proxy, no redirect
followed. The whole fetch, connection and body, ends by one deadline (CIMD_FETCH_TIMEOUT_SECONDS), and a
body over CIMD_MAX_DOCUMENT_SIZE is refused unread beyond that."""
import json
import re
import time
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from oauth2_provider.cimd import CIMDError
from oauth2_provider.settings import oauth2_settings

from webhooks.sending import pinned_pool
from webhooks.targets import BadTarget, target_of

USER_AGENT = "Parley-OAuth/1"
CHUNK = 4096
MAX_AGE = re.compile(r"max-age\s*=\s*(\d+)", re.IGNORECASE)


class GuardedFetcher:
    def fetch(self, client_id):
        """(the document, seconds to keep it) for a client_id URL, or CIMDError saying why not."""
        target = checked_target(client_id)
        deadline = time.monotonic() + oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        pool = pinned_pool(target, target.addresses[0], timeout=urllib3.Timeout(total=remaining(deadline)))
        try:
            response = pool.urlopen("GET", target.path, redirect=False, retries=False, assert_same_host=False,
                                    preload_content=False, headers={
                                        "Host": target.host_header, "User-Agent": USER_AGENT,
                                        "Accept": "application/json"})
            try:
                return document_of(response, deadline), max_age(response.headers.get("Cache-Control", ""))
            finally:
                response.release_conn()
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise CIMDError(f"could not fetch the client's document: {type(exc).__name__}") from None
        finally:
            pool.close()


def checked_target(client_id):
    """The client_id URL, checked: https with a path and no fragment (the CIMD draft), at public addresses."""
    parts = urlsplit(client_id)
    if parts.fragment or parts.path in ("", "/") or any(segment in (".", "..") for segment in parts.path.split("/")):
        raise CIMDError("a client_id URL has a path, without dot segments or a fragment")
    try:
        return target_of(client_id, schemes=("https",), allow_private=settings.PARLEY_OAUTH_ALLOW_PRIVATE)
    except BadTarget as exc:
        raise CIMDError(str(exc)) from None


def document_of(response, deadline):
    """The JSON object a 200 answer holds, read a chunk at a time until the deadline or the size cap."""
    if response.status != 200:
        raise CIMDError(f"the client's document answered HTTP {response.status}")
    kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if kind != "application/json" and not (kind.startswith("application/") and kind.endswith("+json")):
        raise CIMDError("the client's document is not JSON")
    cap, body = oauth2_settings.CIMD_MAX_DOCUMENT_SIZE, bytearray()
    while len(body) <= cap:
        body_socket(response).settimeout(remaining(deadline))  # each read waits only what is left
        chunk = response.read1(CHUNK)
        if not chunk:
            break
        body += chunk
    if len(body) > cap:
        raise CIMDError(f"the client's document is larger than {cap} bytes")
    try:
        document = json.loads(body)
    except ValueError:
        raise CIMDError("the client's document is not valid JSON") from None
    if not isinstance(document, dict):
        raise CIMDError("the client's document is not a JSON object")
    return document


def body_socket(response):
    """The socket the body arrives on. urllib3 and http.client keep it to themselves, and their timeouts
    bound each read, not the whole body: a server dripping a byte at a time would never run into them."""
    return response._fp.fp.raw._sock


def remaining(deadline):
    left = deadline - time.monotonic()
    if left <= 0:
        raise CIMDError("the client's document did not arrive in time")
    return left


def max_age(cache_control):
    """How long to keep the document: its max-age within the configured bounds (no-store, no-cache: the
    least), the most when it says nothing."""
    least, most = oauth2_settings.CIMD_METADATA_MIN_AGE_SECONDS, oauth2_settings.CIMD_METADATA_MAX_AGE_SECONDS
    if "no-store" in cache_control.lower() or "no-cache" in cache_control.lower():
        return least
    found = MAX_AGE.search(cache_control)
    return max(least, min(int(found.group(1)), most)) if found else most
