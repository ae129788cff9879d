"""`POST /mcp`: the SDK's streamable HTTP transport (stateless, JSON responses; a listen answers a stream),
serving mcp_bridge.server in both eras (Parley v1 §2). It is mounted in the ASGI application
(parley_site.asgi), and the Django view (mcp_bridge.views) hands it what reaches Django (WSGI).

What stays hand-written here, in front of it, is what the SDK answers otherwise than §2 and §13 want:
- the transport's refusals (foreign Origin 403, a Host this server does not serve, methods but POST 405,
  an unsupported MCP-Protocol-Version 400, a body not sent as JSON 415, an Accept without JSON 406) are JSON-RPC
  errors in JSON, where the SDK answers plain text (or, for a disallowed Host, 421 in plain text);
- a message that is not one JSON-RPC request, notification or response is -32600 (the SDK's legacy
  transport says -32602, "Validation error", for a batch or a missing `jsonrpc`), a parse error -32700;
- an Accept header that is absent or `*/*` accepts JSON, as HTTP says (the SDK answers it 406);
- and whatever plain-text error the SDK still answers becomes JSON (`json_errors`).

And two things §2 asks that the stateless JSON transport does not do: a held `tools/call` answers a stream
where the client accepts one (mcp_bridge.held_stream), and a request whose client disconnects is cancelled
at once, so that a held call or a listen frees its slot (`until_disconnected`)."""
import asyncio
import json
import time
from http import HTTPStatus

import anyio
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from forum.held import SERVING_LOOP
from forum.limits import limit
from forum.tokens import token_authenticate
from mcp_bridge.context import CALLER, REQUEST_THREADS
from mcp_bridge.held_stream import HELD_STREAM, HeldStream
from mcp_bridge.jsonrpc import (INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ProtocolFault, check_message,
                                error_response)
from mcp_bridge.server import SERVER
from mcp_bridge.tools import refusal_body
from parley_site.bodylimit import replaying
from parley_site.errors import RequestTooLarge, TokenInvalid
from parley_site.jsonbody import JSONBodyError, parse_json
from parley_site.requestlog import log_exchange

# The modern revision first, then the handshake-era ones Parley v1 §2 accepts.
SUPPORTED_VERSIONS = (*MODERN_PROTOCOL_VERSIONS, "2025-11-25", "2025-06-18", "2025-03-26")
ACCEPT_ALL = b"application/json, text/event-stream"


def too_large():
    """A message over `request_max_bytes` is not read: a JSON-RPC error carrying §13's refusal."""
    error = RequestTooLarge("request_max_bytes", limit("request_max_bytes"))
    return error_response(None, INVALID_REQUEST, f"{error.reason}: {error.message}", refusal_body(error))


class Caller:
    """The bearer token of one HTTP request, turned into its actor when a handler first asks (in the
    request's thread); the request log names it."""

    def __init__(self, headers):
        self.authorization, self.actor = headers.get(b"authorization", b"").decode("latin-1"), None

    def __call__(self):
        scheme, _, secret = self.authorization.partition(" ")
        if scheme.lower() != "bearer":
            raise TokenInvalid()
        self.actor = token_authenticate(secret.strip())
        return self.actor


def served_host(host):
    domain, _ = split_domain_port(host)
    allowed = settings.ALLOWED_HOSTS or ([".localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    return bool(domain) and validate_host(domain, allowed)


def accepts_json(accept):
    return any(kind.split(";")[0].strip() in ("application/json", "application/*", "*/*")
               for kind in accept.split(","))


def names_event_stream(accept):
    """Whether a client asks for a stream by name, as every MCP SDK does (§2): a held call then answers one.
    A client that sends no Accept or `*/*` (curl, a hand-written one) gets the JSON it always got."""
    return any(kind.split(";")[0].strip().lower() == "text/event-stream" for kind in accept.split(","))


def transport_refusal(scope, headers):
    """(status, message, headers) for a request the transport refuses before reading its body, or None."""
    host = headers.get(b"host", b"").decode("latin-1")
    if not served_host(host):
        return 421, "this server does not answer for that Host", {}
    origin = headers.get(b"origin")
    if origin is not None:  # DNS-rebinding protection: a browser's Origin must be ours or a configured one
        origin = origin.decode("latin-1").rstrip("/")
        if origin not in (f"{scope.get('scheme', 'http')}://{host}", *settings.MCP_ALLOWED_ORIGINS):
            return 403, f"origin {origin} is not allowed", {}
    if scope["method"] != "POST":  # stateless: no server-initiated stream (GET), no session to end (DELETE)
        return 405, f"{scope['method']} is not allowed; POST one JSON-RPC message", {"Allow": "POST"}
    version = headers.get(b"mcp-protocol-version")
    if version is not None and version.decode("latin-1") not in SUPPORTED_VERSIONS:
        return 400, (f"unsupported MCP-Protocol-Version {version.decode('latin-1')}; supported: "
                     f"{', '.join(SUPPORTED_VERSIONS)}"), {}
    if headers.get(b"content-type", b"").split(b";")[0].strip().lower() != b"application/json":
        return 415, "send the JSON-RPC message as application/json", {}
    if not accepts_json(headers.get(b"accept", b"*/*").decode("latin-1")):
        return 406, "accept application/json (and text/event-stream for subscriptions/listen)", {}
    return None


def envelope_fault(body):
    """The JSON-RPC error (status, body) for a body that is not one JSON-RPC message, or None."""
    try:
        message = parse_json(body)
        check_message(message)
    except JSONBodyError as problem:
        return 400, error_response(None, PARSE_ERROR, problem.message)
    except ProtocolFault as fault:
        return (200 if fault.code == INVALID_PARAMS else 400), fault.as_response()
    return None


async def answer_json(send, status, body, headers=None):
    content = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode()),
                            *((name.lower().encode(), value.encode()) for name, value in (headers or {}).items())]})
    await send({"type": "http.response.body", "body": content})


def json_errors(send):
    """`send`, with any error the SDK answers in plain text turned into a JSON-RPC error in JSON."""
    held = {}

    async def sending(message):
        if message["type"] == "http.response.start" and message["status"] >= 400:
            headers = dict(message.get("headers", []))
            if not headers.get(b"content-type", b"").startswith(b"application/json"):
                held.update(status=message["status"], text=b"",
                            allow={"Allow": headers[b"allow"].decode()} if b"allow" in headers else {})
                return
        if "status" in held and message["type"] == "http.response.body":
            held["text"] += message.get("body", b"")
            if not message.get("more_body"):
                text = held["text"].decode("utf-8", "replace").strip() or HTTPStatus(held["status"]).phrase
                await answer_json(send, held["status"], error_response(None, INVALID_REQUEST, text), held["allow"])
            return
        await send(message)
    return sending


async def serve(scope, body, receive, send, caller, *, request_threads, holds):
    """Answer one request to /mcp whose body was read already (and bounded, parley_site.bodylimit)."""
    headers = dict(scope["headers"])
    refusal = transport_refusal(scope, headers)
    if refusal is not None:
        status, message, extra = refusal
        return await answer_json(send, status, error_response(None, INVALID_REQUEST, message), extra)
    fault = envelope_fault(body)
    if fault is not None:
        return await answer_json(send, *fault)
    accept = headers.get(b"accept", b"*/*").strip()
    held = HeldStream(send, accepts_stream=names_event_stream(accept.decode("latin-1")))
    if accept in (b"", b"*/*"):
        scope = {**scope, "headers": [*(item for item in scope["headers"] if item[0] != b"accept"),
                                      (b"accept", ACCEPT_ALL)]}
    CALLER.set(caller)
    REQUEST_THREADS.set(request_threads)
    SERVING_LOOP.set(asyncio.get_running_loop() if holds else None)
    HELD_STREAM.set(held)
    # One manager per request: stateless, it keeps nothing between requests, and so serves on any event
    # loop (the WSGI view runs each request on one of its own). Bodies are bounded before it.
    manager = StreamableHTTPSessionManager(SERVER, stateless=True, json_response=True,
                                           max_request_body_size=limit("request_max_bytes") + 1)
    async with manager.run():
        await manager.handle_request(scope, replaying(body, receive), json_errors(held.send))


async def until_disconnected(receive, serving):
    """`serving(receive)`, cancelled when its client disconnects: the SDK's stateless JSON transport never
    asks, and a held call or a listen would keep its slot until it ended by itself. `serving` reads the
    client's messages after the body from the `receive` it is given, which answers `http.disconnect` then."""
    gone = anyio.Event()

    async def disconnect():
        await gone.wait()
        return {"type": "http.disconnect"}

    async with anyio.create_task_group() as request:
        async def watch():
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()
            request.cancel_scope.cancel()
        request.start_soon(watch)
        await serving(disconnect)
        request.cancel_scope.cancel()


async def read_body(receive):
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None  # the client left before its body arrived
        body += message.get("body", b"")
        if not message.get("more_body"):
            return bytes(body)


def mounted(request_threads):
    """The ASGI application of /mcp, as parley_site.asgi mounts it: held calls and listen streams wait on
    its event loop; each request's sync code runs on `request_threads`. One request-log line each, as
    Django's requests get (parley_site.requestlog)."""
    async def application(scope, receive, send):
        started, answered = time.perf_counter(), {}
        body = await read_body(receive)
        if body is None:
            return
        caller = Caller(dict(scope["headers"]))

        async def sending(message):
            if message["type"] == "http.response.start":
                answered["status"] = message["status"]
            await send(message)
        try:
            await until_disconnected(receive, lambda disconnect: serve(
                scope, body, disconnect, sending, caller, request_threads=request_threads, holds=True))
        finally:
            log_exchange(scope["method"], scope["path"], answered.get("status", 499), started,
                         identity=getattr(caller.actor, "identity", None),
                         given_id=dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1"))
    return application
