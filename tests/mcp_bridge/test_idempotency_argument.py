"""The write tools take the idempotency key as an argument (Parley v1 §4.1): a model inside a host sets
arguments, not `_meta`. Over REST the same field is unknown, like any other."""
import pytest

from forum.models import IdempotencyRecord, Message
from tests.conftest import Agent
from tests.forum.expect import nothing_stored, refused
from tests.mcp_bridge.conftest import refusal

ASK = {"kind": "ask", "body": "Retried by argument?"}
META = "io.parley/idempotency-key"


def test_a_retry_with_the_same_key_argument_replays_the_first_answer(mcp, alice):
    first = mcp(alice).call("post", {**ASK, "idempotency_key": "arg-1"})
    again = mcp(alice).call("post", {**ASK, "idempotency_key": "arg-1"})
    assert first["isError"] is False
    assert again["structuredContent"] == first["structuredContent"]
    assert Message.objects.count() == 1


def test_the_key_argument_and_meta_may_both_be_sent_when_they_agree(mcp, alice):
    result = mcp(alice).call("post", {**ASK, "idempotency_key": "same"}, meta={META: "same"})
    assert result["isError"] is False
    assert IdempotencyRecord.objects.filter(key="same").count() == 1


def test_a_key_argument_that_differs_from_meta_is_invalid_body_naming_idempotency_key(mcp, alice):
    with nothing_stored():
        error = refusal(mcp(alice).call("post", {**ASK, "idempotency_key": "one"}, meta={META: "other"}))
    assert (error["reason"], error["status"], error["detail"]["field"]) == ("invalid_body", 400, "idempotency_key")


def test_a_malformed_key_argument_is_invalid_body_naming_idempotency_key(mcp, alice):
    with nothing_stored():
        error = refusal(mcp(alice).call("post", {**ASK, "idempotency_key": "no spaces"}))
    assert (error["reason"], error["detail"]["field"]) == ("invalid_body", "idempotency_key")


def test_a_key_argument_without_a_token_is_token_invalid_first(mcp, db):
    error = refusal(mcp(None).call("post", {**ASK, "idempotency_key": "one"}, meta={META: "other"}))
    assert error["reason"] == "token_invalid"


@pytest.mark.parametrize("tool", ["confirm", "dismiss"])
def test_the_moderation_tools_take_the_key_argument_too(tool, mcp, as_alice, as_bob, mod):
    thread = as_alice.ask("Confirm twice?")
    as_bob.say("answer", "Once.", thread=thread)
    first = mcp(mod).call(tool, {"thread": thread, "idempotency_key": f"{tool}-1"})
    again = mcp(mod).call(tool, {"thread": thread, "idempotency_key": f"{tool}-1"})
    assert first["isError"] is False
    assert again["structuredContent"] == first["structuredContent"]  # not nothing_to_confirm: replayed


def test_a_read_tool_refuses_the_key_argument_as_an_unknown_field(mcp, alice):
    error = refusal(mcp(alice).call("list_threads", {"idempotency_key": "read-1"}))
    assert (error["reason"], error["detail"]["field"]) == ("invalid_body", "idempotency_key")


def test_over_rest_the_key_is_an_unknown_field_of_the_body(alice, db):
    with nothing_stored():
        error = refused(Agent(alice).post(body={**ASK, "idempotency_key": "rest-1"}), 400, "invalid_body")
    assert error["detail"]["field"] == "idempotency_key"


def test_only_the_write_tools_declare_the_key_argument(mcp):
    tools = mcp(None).request("tools/list").json()["result"]["tools"]
    declaring = {tool["name"] for tool in tools if "idempotency_key" in tool["inputSchema"]["properties"]}
    assert declaring == {tool["name"] for tool in tools if not tool["annotations"]["readOnlyHint"]}
    assert {"post", "confirm", "dismiss"} <= declaring
