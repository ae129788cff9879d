"""A model understands the tools from tools/list and the server's instructions alone: each description
says when to use its tool, every argument has a type and a description, and a refusal's text says what to
do next, correctly for the caller's rights."""
import re

import pytest

from forum.manifest import manifest_schema
from mcp_bridge.instructions import INSTRUCTIONS
from tests.mcp_bridge.conftest import McpAgent, refusal
from tests.mcp_bridge.schema_walk import typed, undescribed

# Where each description says when to use its tool; a tool added without one fails here.
WHEN_TO_USE = {
    "get_manifest": "Call this first",
    "whoami": "Call it after get_manifest",
    "post": "Pick the kind by what you do",
    "read_message": "one an event or another message points to",
    "read_thread": "read it once before you speak in a thread",
    "list_threads": "To find your next move use inbox instead",
    "list_events": "Watch state changes",
    "inbox": "Your next move",
    "confirm": "Moderators (lock)",
    "dismiss": "Moderators (lock)",
    "redact": "erase a message that leaked a secret",
    "read_claim": "before you attest, refute or verify it",
    "list_claims": "find claims to check or build on",
    "put_artifact": "to cite it as a proof",
    "read_artifact": "before you rely on it",
    "redact_artifact": "Moderators (lock)",
    "export_attestation": "take this realm's signed judgement of a claim to another realm",
    "list_rooms": "the rooms you may see",
    "read_room": "one room",
    "join_room": "join a public room",
    "leave_room": "leave a room",
    "move_thread": "move a thread to another room",
    "read_reputation": "a line's track record",
    "list_outcomes": "the counted outcomes behind a line's record",
}
SERVER_SET = {"id", "author_kind", "created_at"}


def listed_tools():
    return {tool["name"]: tool for tool in McpAgent(None).request("tools/list").json()["result"]["tools"]}


def test_each_tools_description_says_when_to_use_it():
    tools = listed_tools()
    assert set(tools) <= set(WHEN_TO_USE), "a new tool needs its cue here"
    assert {name: WHEN_TO_USE[name] in tool["description"] for name, tool in tools.items()} == \
        {name: True for name in tools}


def test_post_gives_one_line_per_kind():
    post = listed_tools()["post"]
    lines = {kind for line in post["description"].splitlines() if line.startswith("- ")
             for kind in re.split(r" / ", line[2:].split(":")[0])}
    assert lines == set(post["inputSchema"]["properties"]["kind"]["enum"])


def test_posts_close_line_gives_the_close_rules():
    close = next(line for line in listed_tools()["post"]["description"].splitlines() if line.startswith("- close:"))
    assert "never straight from open" in close and "without lock it is a proposal" in close


def test_inbox_says_how_an_asker_waits_for_the_answer_to_its_own_question():
    description = listed_tools()["inbox"]["description"]
    assert "awaiting=decision and wait=30" in description and "your own question" in description


def test_every_argument_of_every_tool_has_a_type_and_a_description():
    for name, tool in listed_tools().items():
        schema = tool["inputSchema"]
        assert undescribed(schema) == [], name
        assert [arg for arg, child in schema["properties"].items() if not typed(child)] == [], name


def test_no_server_set_field_appears_in_an_input_schema():
    post = listed_tools()["post"]["inputSchema"]["properties"]
    assert SERVER_SET.isdisjoint(post)
    assert set(post["from"]["properties"]) == {"extension"}


def test_get_manifest_declares_the_manifests_real_schema():
    declared = listed_tools()["get_manifest"]["outputSchema"]["anyOf"][0]
    assert declared == manifest_schema()
    assert set(declared["properties"]["profiles"]["properties"]) >= {"dialectic", "feed"}
    assert "max_depth" in declared["properties"]["limits"]["properties"]


def test_the_instructions_lay_out_the_working_loop_in_order():
    initialized = McpAgent(None).request("initialize", {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
    instructions = initialized.json()["result"]["instructions"]
    assert instructions == INSTRUCTIONS
    steps = ["get_manifest", "whoami", "inbox with wait", "post one envelope", "read_thread with after"]
    positions = [instructions.index(step) for step in steps]
    assert positions == sorted(positions)


# --- refusals that say what to do next ------------------------------------------------------------------

@pytest.fixture
def proposed_close(as_alice, as_bob):
    thread = as_alice.ask("Close it?")
    as_bob.say("answer", "Yes.", thread=thread)
    assert as_alice.say("close", "Closing.", thread=thread).status_code == 201
    return thread


def test_a_repeated_proposal_tells_a_token_without_lock_to_wait_for_a_moderator(proposed_close, alice):
    error = refusal(McpAgent(alice).call("post", {"kind": "close", "body": "Again.", "thread": proposed_close}))
    assert error["reason"] == "invalid_transition"
    assert "awaits a moderator's confirmation" in error["message"]
    assert "use confirm" not in error["message"] and "confirm it" not in error["message"]


def test_a_repeated_proposal_tells_a_lock_holder_to_confirm_or_dismiss(proposed_close, mod):
    error = refusal(McpAgent(mod).call("post", {"kind": "close", "body": "Again.", "thread": proposed_close}))
    assert error["reason"] == "invalid_transition"
    assert "confirm it with confirm, or drop it with dismiss" in error["message"]


def test_a_close_straight_from_open_names_the_acts_that_do_apply(as_alice, alice):
    thread = as_alice.ask("Close at once?")
    error = refusal(McpAgent(alice).call("post", {"kind": "close", "body": "Now.", "thread": thread}))
    assert "use obsolete, reject or defer" in error["message"]


def test_a_self_reply_says_to_wait_for_another_participant(as_alice, alice):
    thread = as_alice.ask("Answer myself?")
    error = refusal(McpAgent(alice).call("post", {"kind": "answer", "body": "Yes.", "thread": thread}))
    assert error["reason"] == "self_reply" and "wait for another participant" in error["message"]


def test_a_missing_right_points_to_whoami(as_alice, as_bob, alice):
    thread = as_alice.ask("Confirm my own?")
    as_bob.say("answer", "Sure.", thread=thread)
    error = refusal(McpAgent(alice).call("confirm", {"thread": thread}))
    assert error["reason"] == "token_right_missing" and "whoami" in error["message"]
