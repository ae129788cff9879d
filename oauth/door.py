"""`/mcp/oauth`: the MCP server of /mcp, for hosts that sign in with OAuth (hosted connectors). On /mcp a
request without a token is served (discovery needs none, and a tool call without one is a refusal the model
reads, §2), so such a host would never learn that it can sign in. Here every request must carry a valid
bearer token, an access token or a line's own secret; one that does not is answered 401 with the
`WWW-Authenticate` challenge that names the resource metadata (RFC 9728), which starts the host's flow.
Past that check the request is /mcp's, byte for byte."""
import time

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from forum.bearer import refusal_of, refusal_on
from mcp_bridge.jsonrpc import INVALID_REQUEST, error_response
from mcp_bridge.tools import refusal_body
from mcp_bridge.views import mcp_endpoint
from parley_site.requestlog import log_exchange

OAUTH_MCP_PATH = "/mcp/oauth"


def challenge(refusal):
    """(body, headers) of the refusal (the 401: its challenge): a JSON-RPC error carrying §13's refusal."""
    return error_response(None, INVALID_REQUEST, f"{refusal.reason}: {refusal.message}",
                          refusal_body(refusal)), refusal.headers()


def signed_in(mcp_application, request_threads):
    """The ASGI application of /mcp/oauth, as parley_site.asgi mounts it in front of /mcp's."""
    async def application(scope, receive, send):
        started, headers = time.perf_counter(), dict(scope["headers"])
        refusal = await refusal_on(request_threads, headers.get(b"authorization", b"").decode("latin-1"))
        if refusal is None:
            return await mcp_application(scope, receive, send)
        body, headers = challenge(refusal)
        content = JsonResponse(body).content
        await send({"type": "http.response.start", "status": refusal.status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(content)).encode()),
            *((name.lower().encode(), value.encode()) for name, value in headers.items())]})
        await send({"type": "http.response.body", "body": content})
        log_exchange(scope["method"], scope["path"], refusal.status, started, reason=refusal.reason,
                     given_id=headers.get(b"x-request-id", b"").decode("latin-1"))
    return application


@csrf_exempt  # its callers are hosts with bearer tokens, not browsers with cookies
def mcp_oauth_endpoint(request):
    """/mcp/oauth where Django serves it (WSGI, Django's test clients), as mcp_bridge.views serves /mcp."""
    refusal = refusal_of(request.headers.get("Authorization", ""))
    if refusal is None:
        return mcp_endpoint(request)
    body, headers = challenge(refusal)
    return JsonResponse(body, status=refusal.status, headers=headers)
