"""What Parley keeps in front of the MCP SDK's transport and server, each with its reason (Parley v1 §2,
§13, §16): served as the ASGI application serves /mcp."""
import asyncio
import json
import threading

import pytest
from asgiref.sync import async_to_sync
from django.db import connections

from forum.models import Message
from mcp_bridge.http import json_errors
from parley_site.sync_threads import SYNC_WORK
from tests.asgi_client import McpAsgiClient

MODERN = {"MCP-Protocol-Version": "2026-07-28"}
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})


def refused_in_json(response, status):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == -32600
    return error


@pytest.mark.parametrize("headers", [{}, MODERN])
def test_a_get_stays_405_in_json_in_both_eras_as_the_transport_is_stateless(headers):
    response = McpAsgiClient().request("GET", "/mcp", headers=headers)
    refused_in_json(response, 405)
    assert response["Allow"] == "POST"


@pytest.mark.parametrize("headers", [{}, MODERN])
def test_a_foreign_origin_is_refused_403_in_json(headers, alice):
    post = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "post", "arguments": {"kind": "ask", "body": "From a web page?"}}})
    response = McpAsgiClient().post("/mcp", post, headers={**headers, "Origin": "http://evil.example",
                                                           "Authorization": f"Bearer {alice.secret}"})
    refused_in_json(response, 403)
    assert Message.objects.count() == 0


def test_an_accept_without_json_is_refused_406_in_json():
    refused_in_json(McpAsgiClient().post("/mcp", PING, headers={"Accept": "text/html"}), 406)


def test_no_accept_header_accepts_json_as_http_says(db):
    response = McpAsgiClient().post("/mcp", PING)
    assert response.status_code == 200
    assert "tools" in response.json()["result"]


def test_a_listen_that_does_not_accept_a_stream_is_refused_406_in_json(db):
    listen = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["parley://inbox"]},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    response = McpAsgiClient().post("/mcp", listen, headers={**MODERN, "Accept": "application/json",
                                                             "Mcp-Method": "subscriptions/listen"})
    refused_in_json(response, 406)  # the SDK's own 406, in plain text, turned into JSON


def test_a_host_this_server_does_not_answer_for_is_refused_421_in_json(settings):
    settings.ALLOWED_HOSTS = ["parley.example"]
    refused_in_json(McpAsgiClient().post("/mcp", PING, headers={"Host": "attacker.example"}), 421)


def test_a_body_over_request_max_bytes_is_refused_413_in_json_by_the_asgi_application(alice):
    from parley_site.asgi import application
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "post", "arguments": {"kind": "ask", "body": "Big?", "provenance": {"model": "m" * 17000}}}})
    response = McpAsgiClient(app=application).post("/mcp", big, headers={"Authorization": f"Bearer {alice.secret}"})
    error = refused_in_json(response, 413)
    assert error["data"]["error"]["reason"] == "limit_exceeded"
    assert Message.objects.count() == 0


@pytest.mark.parametrize("status", [403, 405, 406, 413, 421])
def test_any_plain_text_error_of_the_sdk_is_answered_in_json(status):
    sent = []

    async def send(message):
        sent.append(message)

    async def plain_text_answer():
        answer = json_errors(send)
        await answer({"type": "http.response.start", "status": status,
                      "headers": [(b"content-type", b"text/plain"), (b"allow", b"POST")]})
        await answer({"type": "http.response.body", "body": b"Not Acceptable"})
    async_to_sync(plain_text_answer)()
    start, body = sent
    assert (start["status"], dict(start["headers"])[b"content-type"]) == (status, b"application/json")
    assert json.loads(body["body"])["error"] == {"code": -32600, "message": "Not Acceptable"}


def test_each_mcp_request_runs_on_a_request_thread_of_its_own_and_gives_its_connection_back(
        transactional_db, alice, monkeypatch):
    """Outside Django's request handler, `sync_to_async(thread_sensitive=True)` alone would run every MCP
    call on one thread, and nothing would ever close its database connection."""
    both_inside = threading.Barrier(2, timeout=10)
    seen = []

    def call(operation, actor, arguments, idempotency_key=None):
        Message.objects.count()  # uses this thread's connection
        seen.append((threading.current_thread().name, connections["default"]))
        both_inside.wait()  # one thread for both calls would never get past this
        return 200, {"items": [], "cursor": ""}
    monkeypatch.setattr("mcp_bridge.tools.call", call)
    client = McpAsgiClient(request_threads=SYNC_WORK)
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_threads"}})

    async def two_at_once():
        return await asyncio.gather(*(client.apost("/mcp", message, headers={"Authorization": f"Bearer {alice.secret}"})
                                      for _ in range(2)))
    answers = async_to_sync(two_at_once)()
    assert [answer.json()["result"]["isError"] for answer in answers] == [False, False]
    (first, first_connection), (second, second_connection) = seen
    assert first != second and first.startswith("parley-sync") and second.startswith("parley-sync")
    if first_connection.vendor == "postgresql":  # SQLite keeps its in-memory test database open, or it is gone
        assert first_connection.connection is None and second_connection.connection is None


def test_a_listen_where_django_serves_mcp_is_refused_at_once_unavailable(mcp, bob):
    """Under WSGI (the Django view of /mcp) nothing can be held: a listen is refused, as a wait is (§16)."""
    listen = {"notifications": {"resourceSubscriptions": ["parley://inbox"]},
              "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}}}
    response = mcp(bob).request("subscriptions/listen", listen, **MODERN, **{"Mcp-Method": "subscriptions/listen",
                                                                           "Accept": "application/json, text/event-stream"})
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["data"]["reason"]) == (-32602, "unavailable")
    assert "parley_site.asgi:application" in error["data"]["detail"]["fix"]
