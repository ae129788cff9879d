"""One delivery attempt on the wire (§17): a POST of the signed payload to an address checked just now
(webhooks.targets), over a connection pinned to that address, with TLS checked against the URL's own host
name, no proxy from the environment, no redirect followed.

The whole attempt has one wall-clock deadline, PARLEY_WEBHOOKS_ATTEMPT_SECONDS: resolving the name,
connecting (CONNECT_SECONDS at most), TLS, sending and reading the answer's head all count against it, and
its body is never read. Timeouts per read would not do: a receiver that trickles a byte every few seconds
meets none of them. So the attempt runs on an event loop of its own, where asyncio.timeout cancels it
wherever it waits (httpx2, the HTTP client the MCP SDK uses too, does the HTTP).

Answers None when delivered (any 2xx), else what went wrong, in a few words for the console."""
import asyncio
import json
import ssl
import time
from datetime import datetime, timezone

import httpx2
from django.conf import settings
from standardwebhooks.webhooks import Webhook as Signer

from webhooks.addresses import ResolversBusy
from webhooks.targets import BadTarget, target_of

CONNECT_SECONDS = 5
USER_AGENT = "Parley-Webhooks/1"


def signed_headers(secret, webhook_id, body, target):
    """Standard Webhooks' three headers (webhook-id, webhook-timestamp, webhook-signature) and ours."""
    now = datetime.now(timezone.utc)
    return {
        "Host": target.host_header,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Signer(secret).sign(webhook_id, now, body),
    }


def pinned_url(target):
    """The URL with the checked address in place of the name: the connection goes there, and nowhere a
    second resolution might lead. The name stays in the Host header and TLS (sni_hostname)."""
    address = target.addresses[0]
    host = f"[{address}]" if address.version == 6 else str(address)
    return f"{target.scheme}://{host}:{target.port}{target.path}"


def post(url, secret, webhook_id, payload):
    """POST `payload` (a JSON-able dict) to `url`, signed with `secret` under `webhook_id`, all of it within
    PARLEY_WEBHOOKS_ATTEMPT_SECONDS."""
    seconds = settings.PARLEY_WEBHOOKS_ATTEMPT_SECONDS
    started = time.monotonic()
    try:
        target = target_of(url)  # resolved again now: the name may point elsewhere than at creation
    except BadTarget as exc:
        return str(exc)[:200]
    except ResolversBusy:
        return "not resolved: every resolver of the worker is busy"
    body = json.dumps(payload, separators=(",", ":"))
    left = seconds - (time.monotonic() - started)
    return asyncio.run(within(left, posted(target, body, signed_headers(secret, webhook_id, body, target))))


async def within(seconds, attempt):
    try:
        async with asyncio.timeout(seconds):
            return await attempt
    except TimeoutError:
        return "timeout"


def pinned_request(client, method, target, **arguments):
    """A streamed request to `target`'s checked address, TLS checked against its host name."""
    return client.stream(method, pinned_url(target), extensions={"sni_hostname": target.host}, **arguments)


def guarded_client():
    """No proxy from the environment, no redirect followed, certificates checked; no timeout per read: the
    caller bounds the whole exchange (within)."""
    return httpx2.AsyncClient(trust_env=False, follow_redirects=False, verify=ssl.create_default_context(),
                              timeout=httpx2.Timeout(None, connect=CONNECT_SECONDS))


async def posted(target, body, headers):
    client = guarded_client()
    try:
        async with client, pinned_request(client, "POST", target, content=body.encode(),
                                          headers=headers) as response:
            status = response.status_code  # the body is never read: a trickled one holds nothing
    except httpx2.TimeoutException:
        return "timeout"
    except httpx2.ConnectError as exc:
        return f"connection failed: {exc}"[:200]
    except (httpx2.HTTPError, OSError) as exc:
        return f"connection failed: {type(exc).__name__}"
    if 200 <= status < 300:
        return None
    if 300 <= status < 400:
        return f"redirect {status} (not followed)"
    return f"HTTP {status}"
