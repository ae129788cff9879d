"""JSON-RPC errors are for protocol faults only (Parley v1 §13): -32700, -32600, -32601, -32602."""
import pytest

from forum.models import Message
from tests.mcp_bridge.conftest import refusal

ASK = {"kind": "ask", "body": "Is this a protocol fault?"}


def error_of(response, status):
    assert response.status_code == status, response.content
    return response.json()["error"]


def test_malformed_json_is_a_parse_error(mcp):
    response = mcp(None).send('{"jsonrpc": "2.0", "id": 1, "method": "ping"')
    assert error_of(response, 400)["code"] == -32700
    assert response.json()["id"] is None


def test_json_with_nan_is_a_parse_error(mcp):
    response = mcp(None).send('{"jsonrpc": "2.0", "id": NaN, "method": "ping"}')
    assert error_of(response, 400)["code"] == -32700


def test_a_message_without_jsonrpc_is_an_invalid_request(mcp):
    response = mcp(None).send({"id": 4, "method": "ping"})
    assert error_of(response, 400)["code"] == -32600
    assert response.json()["id"] == 4


def test_a_message_that_is_not_an_object_is_an_invalid_request(mcp):
    assert error_of(mcp(None).send("42"), 400)["code"] == -32600


def test_a_method_that_is_not_a_string_is_an_invalid_request(mcp):
    assert error_of(mcp(None).send({"jsonrpc": "2.0", "id": 1, "method": 5}), 400)["code"] == -32600


@pytest.mark.parametrize("bad_id", [None, 1.5, True, {"n": 1}])
def test_an_id_that_is_neither_string_nor_integer_is_an_invalid_request(mcp, bad_id):
    response = mcp(None).send({"jsonrpc": "2.0", "id": bad_id, "method": "ping"})
    assert error_of(response, 400)["code"] == -32600
    assert response.json()["id"] is None


def test_a_batch_is_refused_whole_and_changes_nothing(mcp, alice):
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "post", "arguments": ASK}}
    response = mcp(alice).send([call, {**call, "id": 2}])
    assert error_of(response, 400)["code"] == -32600
    assert "batch" in response.json()["error"]["message"]
    assert Message.objects.count() == 0


def test_an_unknown_method_is_method_not_found(mcp):
    response = mcp(None).request("prompts/list")
    assert error_of(response, 200)["code"] == -32601
    assert response.json()["id"] == 1


def test_params_that_are_not_an_object_are_invalid_params(mcp):
    response = mcp(None).send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]})
    assert error_of(response, 200)["code"] == -32602


def test_an_unknown_tool_is_invalid_params(mcp, alice):
    response = mcp(alice).request("tools/call", {"name": "delete_everything", "arguments": {}})
    error = error_of(response, 200)
    assert error["code"] == -32602
    assert "delete_everything" in error["message"]


def test_a_tool_call_without_a_name_is_invalid_params(mcp, alice):
    assert error_of(mcp(alice).request("tools/call", {"arguments": ASK}), 200)["code"] == -32602


def test_wrong_argument_types_are_an_invalid_body_refusal_not_a_fault(mcp, alice):
    result = mcp(alice).call("post", {"kind": "ask", "body": 42})
    error = refusal(result)
    assert (error["reason"], error["status"], error["detail"]) == ("invalid_body", 400, {"field": "body"})
    assert Message.objects.count() == 0


def test_arguments_that_are_not_an_object_are_an_invalid_body_refusal(mcp, alice):
    error = refusal(mcp(alice).call("read_thread", ["th_1"]))
    assert (error["reason"], error["status"]) == ("invalid_body", 400)


def test_an_unknown_argument_is_an_invalid_body_refusal_naming_it(mcp, alice):
    error = refusal(mcp(alice).call("post", {**ASK, "title": "no such field"}))
    assert (error["reason"], error["detail"]) == ("invalid_body", {"field": "title"})
    assert Message.objects.count() == 0


def test_an_unexpected_fault_is_an_internal_error_that_leaks_nothing(mcp, alice, monkeypatch, caplog):
    def explode(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr("mcp_bridge.tools.call", explode)
    response = mcp(alice).request("tools/call", {"name": "read_thread", "arguments": {"thread": 1}})
    error = error_of(response, 200)  # the SDK's transport answers every JSON-RPC error of a request 200
    assert error == {"code": -32603, "message": "internal error"}
    assert "secret internals" in caplog.text
