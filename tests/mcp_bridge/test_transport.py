"""Streamable HTTP in stateless mode (Parley v1 §2): the rules a strict client or gateway relies on."""
import json

import pytest

from forum.models import Message

ASK = {"kind": "ask", "body": "Is the transport strict?"}


CLIENT = {"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def test_initialize_negotiates_the_current_revision_without_a_session(mcp):
    response = mcp(None).request("initialize", {"protocolVersion": "2025-11-25", **CLIENT})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "Mcp-Session-Id" not in response
    result = response.json()["result"]
    assert result["protocolVersion"] == "2025-11-25"
    assert result["capabilities"] == {"tools": {"listChanged": False},
                                      "resources": {"listChanged": False, "subscribe": False}}
    assert result["serverInfo"]["name"] == "parley"


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26"])
def test_initialize_accepts_the_older_revisions_the_sdks_negotiate(mcp, version):
    response = mcp(None).request("initialize", {"protocolVersion": version, **CLIENT})
    assert response.json()["result"]["protocolVersion"] == version


def test_initialize_answers_its_own_revision_to_an_unknown_one(mcp):
    response = mcp(None).request("initialize", {"protocolVersion": "1999-01-01", **CLIENT})
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"


def test_ping_needs_no_token(mcp):
    response = mcp(None).request("ping")
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_a_notification_is_accepted_with_202_and_no_body(mcp):
    response = mcp(None).send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert response.status_code == 202
    assert response.content == b""


def test_a_notification_never_runs_a_tool(mcp, alice):
    response = mcp(alice).send({"jsonrpc": "2.0", "method": "tools/call",
                                "params": {"name": "post", "arguments": ASK}})
    assert response.status_code == 202
    assert Message.objects.count() == 0


def test_a_clients_response_is_accepted_with_202(mcp):
    response = mcp(None).send({"jsonrpc": "2.0", "id": 7, "result": {}})
    assert response.status_code == 202
    assert response.content == b""


def test_an_unsupported_protocol_version_header_is_refused_with_400(mcp, alice):
    response = mcp(alice).request("tools/call", {"name": "post", "arguments": ASK},
                                  **{"MCP-Protocol-Version": "2024-01-01"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert Message.objects.count() == 0


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_a_supported_protocol_version_header_passes(mcp, version):
    response = mcp(None).request("ping", **{"MCP-Protocol-Version": version})
    assert response.status_code == 200


def test_a_foreign_origin_is_refused_with_403_and_changes_nothing(mcp, alice):
    response = mcp(alice).request("tools/call", {"name": "post", "arguments": ASK}, Origin="http://evil.example")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == -32600
    assert Message.objects.count() == 0


def test_the_servers_own_origin_passes(mcp):
    assert mcp(None).request("ping", Origin="http://testserver").status_code == 200


def test_a_configured_origin_passes(mcp, settings):
    settings.MCP_ALLOWED_ORIGINS = ["https://console.example"]
    assert mcp(None).request("ping", Origin="https://console.example").status_code == 200


@pytest.mark.parametrize("method", ["get", "delete", "put"])
def test_only_post_is_allowed_as_there_is_no_stream_and_no_session(mcp, method):
    response = getattr(mcp(None).client, method)("/mcp")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json()["error"]["code"] == -32600


def test_a_body_over_request_max_bytes_is_refused_with_413_and_changes_nothing(mcp, alice):
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "post", "arguments": {**ASK, "provenance": {"model": "x" * 17000}}}}
    response = mcp(alice).send(message)
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == -32600
    assert error["data"]["error"]["reason"] == "limit_exceeded"
    assert error["data"]["error"]["detail"]["limit"] == "request_max_bytes"
    assert error["data"]["error"]["status"] == 413
    assert Message.objects.count() == 0


def test_a_body_not_sent_as_json_is_refused_with_415(mcp, alice):
    response = mcp(alice).send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), content_type="text/plain")
    assert response.status_code == 415


def test_the_endpoint_needs_no_csrf_token(mcp, alice):
    agent = mcp(alice)
    agent.client = type(agent.client)(enforce_csrf_checks=True)
    assert agent.call("post", ASK)["isError"] is False


def test_the_request_log_names_the_identity_behind_a_tool_call(mcp, alice, caplog):
    mcp(alice).call("list_threads")
    (record,) = [record for record in caplog.records if record.name == "parley.request"]
    assert record.fields["identity"] == alice.identity
