"""`/mcp` where Django serves it (a WSGI server, and Django's own test clients): the same transport and
server (mcp_bridge.http), run for this one request on an event loop of its own. Here nothing can be held:
a call that would wait, or a listen, is refused at once (`503 unavailable`, §16), as REST refuses it under
WSGI; the ASGI application serves /mcp itself, before Django, and holds them."""
import asyncio

from asgiref.sync import async_to_sync
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from forum.limits import limit
from mcp_bridge.http import Caller, serve, too_large


def asgi_scope(request):
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers.items()]
    if "Host" not in request.headers:
        headers.append((b"host", request.get_host().encode("latin-1")))
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
            "scheme": request.scheme, "path": request.path, "raw_path": request.path.encode(),
            "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"), "root_path": "",
            "headers": headers, "client": None, "server": None}


async def exchange(scope, body, caller):
    """The response the transport gives, collected whole: (status, headers, body)."""
    started, chunks = {}, []

    async def receive():  # the body was handed over whole; the client stays until the answer is complete
        await asyncio.Event().wait()

    async def send(message):
        if message["type"] == "http.response.start":
            started.update(status=message["status"], headers=message.get("headers", []))
        else:
            chunks.append(message.get("body", b""))
    await serve(scope, body, receive, send, caller, request_threads=None, holds=False)
    return started["status"], started["headers"], b"".join(chunks)


@csrf_exempt  # its callers are agents with bearer tokens, not browsers with cookies
def mcp_endpoint(request):
    try:
        body = request.body  # Django refuses a declared length over DATA_UPLOAD_MAX_MEMORY_SIZE unread
    except RequestDataTooBig:
        return JsonResponse(too_large(), status=413)
    if len(body) > limit("request_max_bytes"):
        return JsonResponse(too_large(), status=413)
    scope = asgi_scope(request)
    caller = Caller(dict(scope["headers"]))
    status, headers, content = async_to_sync(exchange)(scope, body, caller)
    request.auth = caller.actor  # where DRF would put it, so the request log names the acting identity
    response = HttpResponse(content, status=status)
    for name, value in headers:
        if name.lower() not in (b"content-length", b"connection"):
            response[name.decode("latin-1")] = value.decode("latin-1")
    return response
