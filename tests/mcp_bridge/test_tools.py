"""The tools are the §12 operations, generated from the one registry that also validates their calls."""
import json

import jsonschema

from forum.models import Message
from forum.dispatch import OPERATIONS, Operation
from parley_site.shapes import Obj
from tests.mcp_bridge.conftest import refusal

ASK = {"kind": "ask", "body": "Which tools are there?"}
CORE_TOOLS = {"get_manifest", "whoami", "post", "read_message", "read_thread", "list_threads", "list_events",
              "inbox", "confirm", "dismiss"}


def listed_tools(mcp):
    response = mcp(None).request("tools/list")
    assert response.status_code == 200
    return {tool["name"]: tool for tool in response.json()["result"]["tools"]}


def test_tools_list_offers_every_operation_and_needs_no_token(mcp):
    tools = listed_tools(mcp)
    assert CORE_TOOLS <= set(tools)
    assert set(tools) == {operation.name for operation in OPERATIONS.values()}


def test_each_tool_declares_the_schemas_the_server_enforces(mcp):
    for name, tool in listed_tools(mcp).items():
        operation = OPERATIONS[name]
        assert tool["description"] == operation.description_text
        declared = operation.input().json_schema()
        if not operation.read_only:  # the door's own argument (§4.1)
            declared["properties"]["idempotency_key"] = tool["inputSchema"]["properties"]["idempotency_key"]
        assert tool["inputSchema"] == declared
        assert tool["outputSchema"]["anyOf"][0] == {key: value for key, value in operation.output_schema.items()
                                                    if key != "$defs"}
        assert tool["inputSchema"]["type"] == tool["outputSchema"]["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])


def test_read_only_tools_carry_the_read_only_hint(mcp):
    hints = {name: tool["annotations"]["readOnlyHint"] for name, tool in listed_tools(mcp).items()}
    assert {name for name, read_only in hints.items() if not read_only} >= {"post", "confirm", "dismiss"}
    assert all(hints[name] for name in CORE_TOOLS - {"post", "confirm", "dismiss"})


def test_the_post_tool_takes_the_strict_envelope(mcp):
    schema = listed_tools(mcp)["post"]["inputSchema"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]["kind"]["enum"]) >= {"ask", "answer", "note", "decide", "close", "reopen",
                                                        "defer", "obsolete", "reject"}
    assert schema["properties"]["body"]["maxLength"] == 500
    assert schema["required"] == ["body", "kind"]


def test_an_operation_registered_later_joins_the_tool_list(mcp, monkeypatch):
    late = Operation(name="list_widgets", http="GET /api/v1/widgets", description="A profile's read.",
                     input=lambda: Obj({}), output={"type": "object"}, run=lambda actor, args: {"widgets": []})
    monkeypatch.setitem(OPERATIONS, late.name, late)
    assert "list_widgets" in listed_tools(mcp)


def test_tools_list_reads_nothing_from_the_database(mcp, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        listed_tools(mcp)


def test_a_result_carries_structured_content_and_the_same_json_as_text(mcp, alice):
    result = mcp(alice).call("post", ASK)
    assert result["isError"] is False
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert len(result["content"]) == 1
    assert result["structuredContent"]["thread"]["title"] == "Which tools are there?"


def test_get_manifest_needs_no_token(mcp, db):  # the manifest reads the trusted realms (§18)
    manifest = mcp(None).call("get_manifest")["structuredContent"]
    assert manifest["parley"] == "1"
    assert {"name": "post", "mcp_tool": "post", "http": "POST /api/v1/messages"} in manifest["operations"]


def test_get_manifest_answers_its_declared_output_schema_with_boolean_flags(mcp, db):  # the manifest reads the trusted realms (§18)
    manifest = mcp(None).call("get_manifest")["structuredContent"]
    jsonschema.validate(manifest, OPERATIONS["get_manifest"].output_schema)
    jsonschema.validate(manifest, listed_tools(mcp)["get_manifest"]["outputSchema"])
    assert {kind["name"]: kind["needs_thread"] for kind in manifest["kinds"]}["ask"] is False
    assert OPERATIONS["get_manifest"].output_schema["properties"]["kinds"]["items"]["properties"]["needs_thread"][
        "type"] == "boolean"


def test_a_tool_call_without_a_token_is_refused_token_invalid(mcp, db):
    error = refusal(mcp(None).call("post", ASK))
    assert (error["reason"], error["status"]) == ("token_invalid", 401)
    assert Message.objects.count() == 0


def test_a_tool_call_with_an_unknown_token_is_refused_token_invalid(mcp, alice):
    error = refusal(mcp(None).call("list_threads", {}, Authorization="Bearer pt_not-a-token"))
    assert error["reason"] == "token_invalid"


def test_a_keyed_retry_replays_the_first_answer_and_stores_nothing_new(mcp, alice):
    meta = {"io.parley/idempotency-key": "retry-1"}
    first = mcp(alice).call("post", ASK, meta=meta)
    again = mcp(alice).call("post", ASK, meta=meta)
    assert again["structuredContent"] == first["structuredContent"]
    assert json.loads(again["content"][0]["text"]) == first["structuredContent"]  # key order may differ
    assert Message.objects.count() == 1


def test_a_malformed_idempotency_key_is_an_invalid_body_refusal(mcp, alice):
    error = refusal(mcp(alice).call("post", ASK, meta={"io.parley/idempotency-key": "no spaces allowed"}))
    assert (error["reason"], error["detail"]["field"]) == ("invalid_body", "Idempotency-Key")
    assert Message.objects.count() == 0


def test_whoami_answers_the_callers_identity_and_rights(mcp, mod):
    assert mcp(mod).call("whoami")["structuredContent"] == {
        "identity": "ainotes:mod", "label": "Moderator", "rights": ["read", "write", "lock"], "realm": "ainotes",
        "moderates": [], "verifies": []}  # §20


def test_whoami_without_a_token_is_refused_token_invalid(mcp, db):
    assert refusal(mcp(None).call("whoami"))["reason"] == "token_invalid"
