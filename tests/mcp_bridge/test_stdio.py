"""`manage.py parley_mcp_stdio`: the MCP server over stdin/stdout, one JSON-RPC message per line."""
import io
import json
import sys
import time

import pytest
from django.core.management import call_command

from forum.models import Message


@pytest.fixture
def serve(monkeypatch, transactional_db):
    """Run the command on the given lines; returns (stdout lines as JSON, stderr text). Outside a test
    transaction, as in production: the command recycles connections between messages like requests do."""
    def run(*lines, token=None):
        if token is not None:
            monkeypatch.setenv("PARLEY_TOKEN", token.secret)
        else:
            monkeypatch.delenv("PARLEY_TOKEN", raising=False)
        raw = b"".join((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines)
        stdin, stdout, stderr = io.TextIOWrapper(io.BytesIO(raw)), io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdin", stdin)
        monkeypatch.setattr(sys, "stdout", stdout)
        monkeypatch.setattr(sys, "stderr", stderr)
        call_command("parley_mcp_stdio")
        return [json.loads(line) for line in stdout.getvalue().splitlines()], stderr.getvalue()

    return run


INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def initialized(*lines):
    """The handshake a client of that era sends first (a stdio connection lives long: it is initialized
    once), then the lines."""
    return ({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, *lines)


def post(request_id, envelope):
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "post", "arguments": envelope}}


def test_it_answers_each_request_on_its_own_line_and_notifications_not_at_all(serve, alice):
    answers, _ = serve({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {**INITIALIZE, "protocolVersion": "2025-06-18"}},
                       {"jsonrpc": "2.0", "method": "notifications/initialized"},
                       {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                       post(3, {"kind": "ask", "body": "Over a pipe?"}), token=alice)
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[2]["result"]["structuredContent"]["message"]["from"]["identity"] == alice.identity


def test_it_acts_as_the_token_in_parley_token_and_refuses_without_one(serve):
    (_, answer), warnings = serve(*initialized(post(1, {"kind": "ask", "body": "Who am I?"})))
    assert answer["result"]["isError"] is True
    assert answer["result"]["structuredContent"]["error"]["reason"] == "token_invalid"
    assert "PARLEY_TOKEN is not set" in warnings
    assert Message.objects.count() == 0


def test_a_malformed_line_is_a_parse_error_and_the_next_line_is_still_served(serve):
    answers, _ = serve(b"{not json", {"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert answers[0]["error"]["code"] == -32700
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_a_line_over_request_max_bytes_is_refused_unread(serve, alice):
    (_, answer), _ = serve(*initialized(post(1, {"kind": "ask", "body": "Big?", "provenance": {"model": "m" * 17000}})),
                           token=alice)
    assert answer["error"]["data"]["error"]["reason"] == "limit_exceeded"
    assert Message.objects.count() == 0


def test_a_stray_print_goes_to_stderr_not_into_the_protocol_stream(serve, alice, monkeypatch):
    def chatty():
        print("debugging output")
        return []

    monkeypatch.setattr("mcp_bridge.tools.tool_list", chatty)
    answers, logs = serve({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
                          {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    assert "debugging output" in logs


def test_a_tool_call_that_waits_is_held_on_the_commands_event_loop(serve, alice, bob):
    def inbox(request_id, **arguments):
        return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                "params": {"name": "inbox", "arguments": arguments}}
    (_, first), _ = serve(*initialized(inbox(1)), token=bob)
    cursor = first["result"]["structuredContent"]["cursor"]
    started = time.monotonic()
    (_, waited), _ = serve(*initialized(inbox(2, wait=1, since=cursor)), token=bob)
    assert time.monotonic() - started >= 1
    assert waited["result"]["structuredContent"] == {"items": [], "cursor": cursor}
