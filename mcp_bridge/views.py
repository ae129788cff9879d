"""`POST /mcp`: MCP's Streamable HTTP transport in stateless mode (Parley v1 §2). A plain Django view,
outside DRF and CSRF (its callers are agents with bearer tokens, not browsers with cookies): it applies
the transport's own rules, then hands the message to the dispatcher."""
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from forum.held import Held, HeldResponse
from forum.limits import limit
from forum.tokens import token_authenticate
from mcp_bridge.dispatch import SUPPORTED_VERSIONS, handle, too_large
from mcp_bridge.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, error_response
from parley_site.errors import TokenInvalid

# Faults that mean "this POST was not accepted" get an HTTP error status; every other response is 200.
HTTP_STATUS_OF_FAULT = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INTERNAL_ERROR: 500}


def bearer_actor(request):
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        raise TokenInvalid()
    # Where DRF would put it, so the request log names the acting identity as it does for REST.
    request.auth = token_authenticate(secret.strip())
    return request.auth


def foreign_origin(request):
    """DNS-rebinding protection: a browser's Origin must be this server's own or a configured one.
    Clients that are not browsers send no Origin and pass."""
    origin = request.headers.get("Origin")
    if origin is None:
        return False
    own = f"{request.scheme}://{request.get_host()}"
    return origin.rstrip("/") not in (own, *settings.MCP_ALLOWED_ORIGINS)


def refused(status, message, **headers):
    return JsonResponse(error_response(None, INVALID_REQUEST, message), status=status, headers=headers)


def transport_refusal(request):
    """The transport rules a strict client or gateway relies on, checked before the body is read."""
    if foreign_origin(request):
        return refused(403, f"origin {request.headers['Origin']} is not allowed")
    if request.method != "POST":
        # Stateless: no server-initiated stream (GET) and no session to end (DELETE).
        return refused(405, f"{request.method} is not allowed; POST one JSON-RPC message", Allow="POST")
    version = request.headers.get("MCP-Protocol-Version")
    if version is not None and version not in SUPPORTED_VERSIONS:
        return refused(400, f"unsupported MCP-Protocol-Version {version}; supported: "
                            f"{', '.join(SUPPORTED_VERSIONS)}")
    if request.content_type != "application/json":
        return refused(415, "send the JSON-RPC message as application/json")
    return None


@csrf_exempt
def mcp_endpoint(request):
    refusal = transport_refusal(request)
    if refusal is not None:
        return refusal
    try:
        raw = request.body  # Django refuses a declared length over DATA_UPLOAD_MAX_MEMORY_SIZE unread
    except RequestDataTooBig:
        return JsonResponse(too_large(), status=413)
    if len(raw) > limit("request_max_bytes"):
        return JsonResponse(too_large(), status=413)
    response = handle(raw, lambda: bearer_actor(request))
    if response is None:
        return HttpResponse(status=202)
    if isinstance(response, Held):
        return HeldResponse(response.then(lambda message: (200, JsonResponse(message).content, {})))
    status = HTTP_STATUS_OF_FAULT.get(response.get("error", {}).get("code"), 200)
    return JsonResponse(response, status=status)
