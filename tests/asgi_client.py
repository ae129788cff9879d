"""Django's AsyncClient behind the sync calls the tests make of APIClient and Client: requests go through
Django's ASGI handler, as under the real server, so held calls and event streams are served (§16) instead
of refused as under WSGI."""
import asyncio
import json
import time
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from django.test import AsyncClient


def as_headers(extra):
    """WSGI-style `HTTP_LAST_EVENT_ID=...` keyword arguments as the headers AsyncClient takes."""
    return {key.removeprefix("HTTP_").replace("_", "-"): value for key, value in extra.items()}


class AsgiClient:
    def __init__(self):
        self.client = AsyncClient()
        self.defaults = {}

    def credentials(self, **extra):
        self.defaults = as_headers(extra)

    def force_login(self, user):
        self.client.force_login(user)

    def get(self, path, data=None, headers=None, **extra):
        return async_to_sync(self.client.get)(path, data, headers=self.headers(headers, extra))

    def post(self, path, data=None, content_type="application/json", format=None, headers=None, **extra):
        body = data if isinstance(data, (str, bytes)) else json.dumps(data if data is not None else {})
        return async_to_sync(self.client.post)(path, body, content_type=content_type,
                                               headers=self.headers(headers, extra))

    def headers(self, given, extra):
        return {**self.defaults, **(given or {}), **as_headers(extra)}


class McpResponse:
    def __init__(self, status, headers, content):
        self.status_code, self.headers, self.content = status, headers, content

    def __getitem__(self, name):
        return self.headers[name.lower()]

    def __contains__(self, name):
        return name.lower() in self.headers

    def json(self):
        return json.loads(self.content)


class McpAsgiClient:
    """POST /mcp to the MCP mount of the ASGI application (mcp_bridge.http), as the server serves it: held
    calls and listens wait on the event loop. Its sync work comes back to the test's thread, and so to the
    test's database transaction, as Django's AsyncClient does for views."""

    def __init__(self, request_threads=None, app=None):
        from mcp_bridge.http import mounted
        self.app, self.client = app or mounted(request_threads), self

    async def apost(self, path, body, content_type="application/json", headers=None, method="POST"):
        raw = body if isinstance(body, bytes) else body.encode()
        given = {name.lower(): value for name, value in (headers or {}).items()}
        sent = [(b"host", given.pop("host", "testserver").encode()), (b"content-type", content_type.encode()),
                *((name.encode(), value.encode()) for name, value in given.items())]
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": sent, "client": ("127.0.0.1", 1), "server": ("testserver", 80)}
        messages = [{"type": "http.request", "body": raw, "more_body": False}]
        started, chunks = {}, []

        async def receive():
            if messages:
                return messages.pop()
            await asyncio.Event().wait()  # the client stays until the response is complete

        async def send(message):
            if message["type"] == "http.response.start":
                started.update(status=message["status"],
                               headers={k.decode().lower(): v.decode() for k, v in message["headers"]})
            else:
                chunks.append(message.get("body", b""))
        await self.app(scope, receive, send)
        return McpResponse(started["status"], started["headers"], b"".join(chunks))

    def post(self, path, body, content_type="application/json", headers=None):
        return async_to_sync(self.apost)(path, body, content_type, headers)

    def request(self, method, path, body=b"", headers=None, content_type="application/json"):
        return async_to_sync(self.apost)(path, body, content_type, headers, method)


@dataclass
class Answer:
    status: int
    body: dict
    seconds: float


async def timed_request(method, path, token=None, body=None):
    """One request to the whole ASGI application (parley_site.asgi), as a server hands it over, timed."""
    from parley_site.asgi import application

    headers = [(b"host", b"testserver"), (b"content-type", b"application/json")]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    raw = json.dumps(body).encode() if body is not None else b""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
             "client": ("127.0.0.1", 1), "server": ("testserver", 80)}
    messages, started, chunks = [{"type": "http.request", "body": raw, "more_body": False}], {}, []

    async def receive():
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # the client stays connected

    async def send(message):
        if message["type"] == "http.response.start":
            started["status"] = message["status"]
        else:
            chunks.append(message.get("body", b""))

    began = time.monotonic()
    await application(scope, receive, send)
    content = b"".join(chunks)
    return Answer(started["status"], json.loads(content) if content else {}, time.monotonic() - began)
