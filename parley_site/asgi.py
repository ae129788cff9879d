"""The ASGI application: how Parley is served, by `make run` and by `gunicorn -c gunicorn.conf.py` alike
(docs/deploy.md). Held calls, event streams and MCP listen streams wait on its event loop as coroutines (§16).

`/mcp` is the official MCP SDK's streamable HTTP transport (mcp_bridge.http), mounted beside Django, and so is
`/mcp/oauth`, the same behind a bearer check for hosts that sign in with OAuth (oauth.door). Around
both: the lifespan protocol, which Django refuses (parley_site.lifespan), request bodies bounded
while they arrive (parley_site.bodylimit; the route whose body streams through under its own limit is
evidence's to name, evidence.uploads.streamed_upload), the health probe answered on threads of its own
(parley_site.health), and one pool of threads for every request's sync code instead of
a thread per open request (parley_site.sync_threads)."""
import os
from functools import partial

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley_site.settings")
django_application = get_asgi_application()

from evidence.uploads import streamed_upload  # noqa: E402  (apps load with get_asgi_application)
from forum.limits import limit  # noqa: E402
from mcp_bridge.http import mounted, too_large  # noqa: E402
from oauth.door import OAUTH_MCP_PATH, signed_in  # noqa: E402
from parley_site.bodylimit import Refusal, bounded_bodies, carries_credential  # noqa: E402
from parley_site.errors import RequestTooLarge, TokenInvalid  # noqa: E402
from parley_site.health import answering_probes  # noqa: E402
from parley_site.lifespan import with_lifespan  # noqa: E402
from parley_site.sync_threads import SYNC_WORK, on_shared_threads  # noqa: E402

MCP_PATH = "/mcp"
MCP_PATHS = (MCP_PATH, OAUTH_MCP_PATH)


def request_max_bytes():
    return limit("request_max_bytes")


def too_large_body(scope):
    """The refusal of a body over request_max_bytes, in the shape of the door it was sent to: JSON-RPC for
    MCP, §13 for the rest, where a request carrying no credential at all is token_invalid first (§13)."""
    if scope["path"] in MCP_PATHS:
        return Refusal(413, too_large())
    if not carries_credential(scope):
        return Refusal.of(TokenInvalid())
    return Refusal.of(RequestTooLarge("request_max_bytes", request_max_bytes()))


def with_mcp(django, doors):
    """`doors`: path -> the ASGI application serving it instead of Django."""
    async def application(scope, receive, send):
        door = doors.get(scope["path"]) if scope["type"] == "http" else None
        if door is not None:
            return await door(scope, receive, send)
        return await django(scope, receive, send)
    return application


MCP_DOORS = {MCP_PATH: mounted(SYNC_WORK), OAUTH_MCP_PATH: signed_in(mounted(SYNC_WORK), SYNC_WORK)}
application = with_lifespan(bounded_bodies(
    answering_probes(with_mcp(on_shared_threads(django_application), MCP_DOORS)),
    request_max_bytes, too_large_body, partial(streamed_upload, SYNC_WORK)))
