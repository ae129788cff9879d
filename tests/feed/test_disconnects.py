"""A held call, a listen or an event stream whose client disconnects frees its slot within a second (§2, §16),
on every door, against the ASGI application under uvicorn as it is served: a raw client holds the line's
only slot, a second call is refused `limit_exceeded` while it holds, the client cuts its connection, and a
second later the slot is there again."""
import http.client
import json
import socket
import time

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
JSON_ONLY, BOTH = "application/json", "application/json, text/event-stream"


def mcp_call(method, params, accept, modern, name=None):
    headers = {"Content-Type": "application/json", "Accept": accept,
               "MCP-Protocol-Version": "2026-07-28" if modern else "2025-11-25"}
    if modern:
        params = {**params, "_meta": MODERN_META}
        headers.update({"Mcp-Method": method, **({"Mcp-Name": name} if name else {})})
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return "POST", "/mcp", body, headers


def held_tool(accept, modern):
    def request(seconds):
        return mcp_call("tools/call", {"name": "inbox", "arguments": {"wait": seconds}}, accept, modern, "inbox")
    return request


def listen(seconds):
    return mcp_call("subscriptions/listen", {"notifications": {"resourceSubscriptions": ["parley://inbox"]}},
                    BOTH, True)


def rest_wait(seconds):
    return "GET", f"/api/v1/inbox?wait={seconds}", None, {}


def event_stream(seconds):
    return "GET", "/api/v1/events/stream", None, {}


def refused_limit(status, content_type, body):
    """The reason a door's answer gives: the §13 body, the tool result's or the JSON-RPC error's data."""
    if not content_type.startswith("application/json"):
        return None
    answer = json.loads(body)
    if "error" in answer and "reason" in answer["error"]:
        return answer["error"]["reason"]
    if "error" in answer:
        return answer["error"]["data"]["reason"]
    result = answer.get("result", {})  # a page of the REST API's has none
    return result["structuredContent"]["error"]["reason"] if result.get("isError") else None


# door -> (what holds, what asks next): a second held tool call over the limit would answer its refusal as
# the last event of a stream, so the next one asks for JSON.
DOORS = {
    "rest wait": (rest_wait, rest_wait), "event stream": (event_stream, event_stream), "mcp listen": (listen, listen),
    **{f"mcp wait, {era}, {answer}": (held_tool(accept, modern), held_tool(JSON_ONLY, modern))
       for era, modern in (("handshake era", False), ("2026-07-28", True))
       for answer, accept in (("JSON", JSON_ONLY), ("stream", BOTH))},
}


class Holder:
    """A raw client: sends one request and holds the connection until `cut()`."""

    def __init__(self, port, token, request):
        method, path, body, headers = request
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Authorization: Bearer {token.secret}",
                *(f"{name}: {value}" for name, value in headers.items())]
        data = (body or "").encode()
        if body is not None:
            head.append(f"Content-Length: {len(data)}")
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)

    def cut(self):
        self.sock.close()


def answer(port, token, request):
    """What a second call meets: the refusal's reason, or None when it was served (a stream opened)."""
    method, path, body, headers = request
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body, headers={**headers, "Authorization": f"Bearer {token.secret}"})
        response = connection.getresponse()
        content_type = response.getheader("Content-Type", "")
        if content_type.startswith("text/event-stream"):
            return None
        return refused_limit(response.status, content_type, response.read())
    finally:
        connection.close()


@pytest.mark.parametrize("door", list(DOORS))
def test_a_client_that_disconnects_frees_its_slot_within_a_second(asgi_live_server, bob, settings, door):
    settings.PARLEY_FEED = {**settings.PARLEY_FEED, "waits_per_token_max": 1, "streams_per_token_max": 1}
    port, (holding, asking) = int(asgi_live_server.rsplit(":", 1)[1]), DOORS[door]
    holder = Holder(port, bob, holding(30))
    time.sleep(0.5)  # it holds the line's one slot by now
    assert answer(port, bob, asking(1)) == "limit_exceeded"
    holder.cut()
    time.sleep(1)
    assert answer(port, bob, asking(1)) is None
