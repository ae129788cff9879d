"""Every tool's outputSchema describes every key it answers (Parley v1 §12), since SDK clients validate
results against it: each schema declares every key of every object, with a type, and real results of
every tool, from a conversation that reaches every kind of answer, validate against it."""
import pytest
from jsonschema import Draft202012Validator

from evidence.keys import key_create
from forum.actors import Actor
from mcp_bridge.tools import REFUSAL_SCHEMA
from rooms.services import room_create
from tests.mcp_bridge.conftest import McpAgent
from tests.mcp_bridge.schema_walk import type_arrays, untyped_or_open

PROOF = [{"kind": "url", "ref": "https://example.org/evidence", "note": "where it is written"}]


def listed_tools():
    return {tool["name"]: tool for tool in McpAgent(None).request("tools/list").json()["result"]["tools"]}


def ok(result):
    assert result["isError"] is False, result["structuredContent"]
    return result["structuredContent"]


@pytest.fixture
def results(alice, bob, carol, mod):
    """(tool, structuredContent) of real calls of every tool, over MCP."""
    asker, answerer, third, moderator = McpAgent(alice), McpAgent(bob), McpAgent(carol), McpAgent(mod)
    calls = []

    def call(agent, tool, arguments):
        body = ok(agent.call(tool, arguments))
        calls.append((tool, body))
        return body

    call(McpAgent(None), "get_manifest", {})
    call(asker, "whoami", {})
    opened = call(asker, "post", {"kind": "ask", "body": "Which port?", "provenance": {"model": "m", "client": "c"},
                                  "from": {"extension": "planner"}})
    thread = opened["thread"]["id"]
    answer = call(answerer, "post", {"kind": "answer", "body": "8000.", "thread": thread})["message"]["id"]
    asserted = call(answerer, "post", {"kind": "assert", "body": "Port 8000 is free.", "thread": thread,
                                       "proof": PROOF, "valid_until": "2999-01-01T00:00:00Z"})
    claim = asserted["claim"]["id"]
    call(third, "post", {"kind": "attest", "body": "Checked.", "thread": thread, "claim": claim, "proof": PROOF})
    call(moderator, "post", {"kind": "note", "body": "Noted.", "thread": thread, "parent": answer})
    call(asker, "post", {"kind": "decide", "body": "8000 it is.", "thread": thread})
    call(answerer, "read_message", {"message": asserted["message"]["id"]})
    call(answerer, "read_thread", {"thread": thread})
    call(answerer, "read_thread", {"thread": thread, "after": answer})
    call(answerer, "list_threads", {})
    call(answerer, "list_events", {"thread": thread})
    call(moderator, "inbox", {"awaiting": "confirmation"})
    call(answerer, "inbox", {})
    call(moderator, "confirm", {"thread": thread})
    other = call(asker, "post", {"kind": "ask", "body": "And the host?"})["thread"]["id"]
    call(asker, "post", {"kind": "defer", "body": "Later.", "thread": other})
    call(moderator, "dismiss", {"thread": other, "reason": "Not yet: ask again once the host is known."})
    call(moderator, "redact", {"message": answer, "reason": "It leaked a password."})
    call(answerer, "read_claim", {"claim": claim})
    call(answerer, "list_claims", {"thread": thread})
    artifact = call(asker, "put_artifact", {"text": "3 tests failed."})["artifact"]["id"]
    call(answerer, "read_artifact", {"artifact": artifact})
    call(moderator, "redact_artifact", {"artifact": artifact, "reason": "a leaked secret"})
    key_create()
    call(answerer, "export_attestation", {"claim": claim})
    call(answerer, "list_rooms", {})  # §20, with the rooms' keys filled in
    call(answerer, "join_room", {"room": "general", "mute": True})
    call(answerer, "read_room", {"room": "rm_1"})
    call(answerer, "leave_room", {"room": "general"})
    room_create(Actor.for_operator("tests"), {"slug": "elsewhere", "name": "Elsewhere", "quorum": 2})
    call(moderator, "move_thread", {"thread": other, "room": "elsewhere", "reason": "It belongs there."})
    call(answerer, "read_reputation", {})  # §21: bob's record, his claim pending
    call(moderator, "read_reputation", {"identity": bob.identity})
    call(answerer, "list_outcomes", {})
    return calls


def answer_schema(tool):
    """The first branch of a tool's outputSchema, its answer (the second is the refusal), with the root's
    `$defs` its references reach."""
    answer, refusal = tool["outputSchema"]["anyOf"]
    assert refusal == REFUSAL_SCHEMA
    return {**answer, "$defs": tool["outputSchema"].get("$defs", {})}


def violations(body, schema):
    return [f"{list(error.absolute_path)}: {error.message}" for error in Draft202012Validator(schema).iter_errors(body)]


def test_every_tools_answer_schema_declares_every_key_with_a_type():
    problems = {name: untyped_or_open(answer_schema(tool)) for name, tool in listed_tools().items()}
    assert {name: found for name, found in problems.items() if found} == {}


def test_no_tool_schema_writes_a_type_array_nullable_values_are_any_of_their_type_and_null():
    assert type_arrays(McpAgent(None).request("tools/list").json()["result"]) == []


def test_real_results_of_every_tool_validate_against_its_declared_output_schema(results):
    tools = listed_tools()
    assert {tool for tool, _ in results} == set(tools), "a tool without a real result proves nothing"
    for tool, body in results:
        assert violations(body, answer_schema(tools[tool])) == [], tool
        assert violations(body, tools[tool]["outputSchema"]) == [], tool


def test_a_refusal_of_every_tool_validates_against_its_declared_output_schema(db):
    """A client that checks structuredContent even when isError is true (the TypeScript SDK's) still
    reaches the refusal, so its reason reaches the model."""
    for name, tool in listed_tools().items():
        result = McpAgent(None).call(name, {"no_such_argument": 1})
        assert result["isError"] is True
        assert violations(result["structuredContent"], tool["outputSchema"]) == [], name
        assert violations(result["structuredContent"], answer_schema(tool)) != [], name


def test_the_results_reach_the_keys_that_profiles_add(results):
    """The conversation is rich enough: a write's claim, a message's claim, a claim event with its message."""
    posts = [body for tool, body in results if tool == "post"]
    assert any("claim" in body for body in posts)
    tree = next(body for tool, body in results if tool == "read_thread" and body["messages"][0].get("replies"))
    assert any("claim" in node for root in tree["messages"] for node in root["replies"])
    events = next(body for tool, body in results if tool == "list_events")["items"]
    assert any(event["claim"] and event["message"] for event in events)
