"""Client ID Metadata Documents (MCP authorization, Client Registration): a client whose client_id is an
https URL is described by the JSON document at that URL, which this server fetches when it first meets the
client (django-oauth-toolkit's CIMD support calls `GuardedFetcher.fetch`).

The URL is the client's to choose, so the fetch goes through the webhooks' guard against server-side
request forgery (webhooks.addresses, webhooks.targets, webhooks.sending): https only, on its own port unless
PARLEY_WEBHOOKS_ALLOW_PORTS widens it, every address the name resolves to public unless
PARLEY_OAUTH_ALLOW_PRIVATE, the connection pinned to a checked address, no proxy, no redirect followed. The
whole fetch, connection and body, ends by one deadline (CIMD_FETCH_TIMEOUT_SECONDS): a server dripping a byte
at a time meets it as surely as a silent one. A body over CIMD_MAX_DOCUMENT_SIZE is refused unread beyond
that."""
import asyncio
import json
import re
from urllib.parse import urlsplit

import httpx2
from django.conf import settings
from oauth2_provider.cimd import CIMDError
from oauth2_provider.settings import oauth2_settings

from webhooks.addresses import ResolversBusy
from webhooks.sending import guarded_client, pinned_request
from webhooks.targets import BadTarget, target_of

USER_AGENT = "Parley-OAuth/1"
MAX_AGE = re.compile(r"max-age\s*=\s*(\d+)", re.IGNORECASE)


class GuardedFetcher:
    def fetch(self, client_id):
        """(the document, seconds to keep it) for a client_id URL, or CIMDError saying why not."""
        target = checked_target(client_id)
        try:
            return asyncio.run(asyncio.wait_for(fetched(target), oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS))
        except TimeoutError:
            raise CIMDError("the client's document did not arrive in time") from None
        except (httpx2.HTTPError, OSError) as exc:
            raise CIMDError(f"could not fetch the client's document: {type(exc).__name__}") from None


def checked_target(client_id):
    """The client_id URL, checked: https with a path and no fragment (the CIMD draft), at public addresses."""
    parts = urlsplit(client_id)
    if parts.fragment or parts.path in ("", "/") or any(segment in (".", "..") for segment in parts.path.split("/")):
        raise CIMDError("a client_id URL has a path, without dot segments or a fragment")
    try:
        return target_of(client_id, schemes=("https",), allow_private=settings.PARLEY_OAUTH_ALLOW_PRIVATE)
    except BadTarget as exc:
        raise CIMDError(str(exc)) from None
    except ResolversBusy:
        raise CIMDError("the client's host cannot be resolved now") from None


async def fetched(target):
    client = guarded_client()
    headers = {"Host": target.host_header, "User-Agent": USER_AGENT, "Accept": "application/json"}
    async with client, pinned_request(client, "GET", target, headers=headers) as response:
        if response.status_code != 200:
            raise CIMDError(f"the client's document answered HTTP {response.status_code}")
        kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json" and not (kind.startswith("application/") and kind.endswith("+json")):
            raise CIMDError("the client's document is not JSON")
        document = document_of(await capped_body(response))
        return document, max_age(response.headers.get("Cache-Control", ""))


async def capped_body(response):
    """The body, read as it arrives, refused once it passes the size cap."""
    cap, body = oauth2_settings.CIMD_MAX_DOCUMENT_SIZE, bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > cap:
            raise CIMDError(f"the client's document is larger than {cap} bytes")
    return bytes(body)


def document_of(body):
    """The JSON object the body holds."""
    try:
        document = json.loads(body)
    except ValueError:
        raise CIMDError("the client's document is not valid JSON") from None
    if not isinstance(document, dict):
        raise CIMDError("the client's document is not a JSON object")
    return document


def max_age(cache_control):
    """How long to keep the document: its max-age within the configured bounds (no-store, no-cache: the
    least), the most when it says nothing."""
    least, most = oauth2_settings.CIMD_METADATA_MIN_AGE_SECONDS, oauth2_settings.CIMD_METADATA_MAX_AGE_SECONDS
    if "no-store" in cache_control.lower() or "no-cache" in cache_control.lower():
        return least
    found = MAX_AGE.search(cache_control)
    return max(least, min(int(found.group(1)), most)) if found else most
