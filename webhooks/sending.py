"""One delivery attempt on the wire (§17): a POST of the signed payload to an address checked just now
(webhooks.targets), over a connection pinned to that address, with TLS checked against the URL's own host
name, no proxy (urllib3's pools read none from the environment), no redirect followed, short timeouts.

Answers None when delivered (any 2xx), else what went wrong, in a few words for the console."""
import json
from datetime import datetime, timezone

import urllib3
from standardwebhooks.webhooks import Webhook as Signer
from urllib3.exceptions import HTTPError, NewConnectionError, TimeoutError

from webhooks.targets import BadTarget, target_of

TIMEOUT = urllib3.Timeout(connect=5, read=10)
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


def pinned_pool(target, address, timeout=TIMEOUT):
    """A pool whose every connection goes to `address`, while TLS names and checks `target.host`."""
    if target.scheme == "http":
        return urllib3.HTTPConnectionPool(str(address), target.port, timeout=timeout, retries=False, maxsize=1)
    return urllib3.HTTPSConnectionPool(str(address), target.port, timeout=timeout, retries=False, maxsize=1,
                                       cert_reqs="CERT_REQUIRED", server_hostname=target.host,
                                       assert_hostname=target.host)


def post(url, secret, webhook_id, payload):
    """POST `payload` (a JSON-able dict) to `url`, signed with `secret` under `webhook_id`."""
    try:
        target = target_of(url)  # resolved again now: the name may point elsewhere than at creation
    except BadTarget as exc:
        return str(exc)[:200]
    body = json.dumps(payload, separators=(",", ":"))
    pool = pinned_pool(target, target.addresses[0])
    try:
        response = pool.urlopen("POST", target.path, body=body.encode(),
                                headers=signed_headers(secret, webhook_id, body, target),
                                redirect=False, retries=False, assert_same_host=False, preload_content=False)
        response.release_conn()
    except NewConnectionError as exc:  # urllib3 counts it a timeout too, but nothing answered at all
        return f"connection failed: {exc.__context__ or exc}"[:200]
    except TimeoutError:
        return "timeout"
    except (HTTPError, OSError) as exc:
        return f"connection failed: {type(exc).__name__}"
    finally:
        pool.close()
    if 200 <= response.status < 300:
        return None
    if 300 <= response.status < 400:
        return f"redirect {response.status} (not followed)"
    return f"HTTP {response.status}"
