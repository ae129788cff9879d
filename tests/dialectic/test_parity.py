"""The same identity gets the same answer about claims through REST and MCP (`tools/call` on POST /mcp):
the same claim after every act, the same refusals, and tool schemas that are the operations' own."""
import jsonschema
import pytest

from forum.dispatch import OPERATIONS
from tests.conftest import Agent
from tests.dialectic.conftest import URL_PROOF, act
from tests.forum.expect import nothing_stored
from tests.mcp_bridge.conftest import McpAgent, refusal


@pytest.mark.parametrize("kind, persona", [("attest", "bob"), ("refute", "carol")])
def test_an_act_over_mcp_answers_the_claim_rest_then_reads(request, thread, claim, kind, persona):
    token = request.getfixturevalue(persona)
    result = McpAgent(token).call("post", {"kind": kind, "body": "via MCP", "thread": thread, "claim": claim,
                                           "proof": [URL_PROOF]})
    assert result["isError"] is False, result
    written = result["structuredContent"]["claim"]
    assert written == Agent(token).get(f"/api/v1/claims/{claim}").json()["claim"]


def test_read_claim_and_list_claims_answer_alike_through_both_doors(as_bob, bob, thread, claim):
    assert act(as_bob, "attest", claim, thread).status_code == 201
    mcp = McpAgent(bob)
    read = mcp.call("read_claim", {"claim": claim})
    assert read["structuredContent"] == as_bob.get(f"/api/v1/claims/{claim}").json()
    jsonschema.validate(read["structuredContent"], OPERATIONS["read_claim"].output)
    listed = mcp.call("list_claims", {"thread": thread, "certainty": "supported", "limit": 10})
    assert listed["structuredContent"] == as_bob.get("/api/v1/claims", thread=thread, certainty="supported",
                                                     limit=10).json()
    assert [item["id"] for item in listed["structuredContent"]["items"]] == [claim]


@pytest.mark.parametrize("persona, kind, status, reason", [
    ("alice", "attest", 409, "self_attest"),
    ("bob", "verify", 403, "token_right_missing"),
])
def test_a_refused_act_is_refused_alike_through_both_doors(request, thread, claim, persona, kind, status, reason):
    token = request.getfixturevalue(persona)
    with nothing_stored():
        rest = act(Agent(token), kind, claim, thread)
        envelope = {"kind": kind, "body": "see the proof", "thread": thread, "claim": claim, "proof": [URL_PROOF]}
        error = refusal(McpAgent(token).call("post", envelope))
        assert rest.status_code == status == error["status"]
        assert {**rest.json()["error"], "status": status} == error
        assert error["reason"] == reason


def test_an_unknown_claim_is_not_found_alike_through_both_doors(as_bob, bob, claim):
    error = refusal(McpAgent(bob).call("read_claim", {"claim": "cl_404"}))
    assert {**as_bob.get("/api/v1/claims/cl_404").json()["error"], "status": 404} == error


def test_a_bad_proof_over_mcp_is_invalid_body_naming_the_element(bob, thread, claim):
    envelope = {"kind": "attest", "body": "x", "thread": thread, "claim": claim,
                "proof": [URL_PROOF, {"kind": "hash", "ref": "md5:00"}]}
    error = refusal(McpAgent(bob).call("post", envelope))
    assert (error["reason"], error["detail"]["field"]) == ("invalid_body", "proof[1].ref")


def test_the_claim_tools_are_listed_with_the_operations_schemas(bob):
    response = McpAgent(bob).request("tools/list")
    tools = {tool["name"]: tool for tool in response.json()["result"]["tools"]}
    for name in ("read_claim", "list_claims"):
        assert tools[name]["inputSchema"] == OPERATIONS[name].input().json_schema()
        assert tools[name]["outputSchema"]["anyOf"][0] == OPERATIONS[name].output_schema  # or a refusal
        assert tools[name]["annotations"]["readOnlyHint"] is True
    assert {"assert", "attest", "refute", "verify"} <= set(tools["post"]["inputSchema"]["properties"]["kind"]["enum"])


def test_a_verifier_seals_over_mcp(vera, as_bob, thread, claim):
    assert act(as_bob, "attest", claim, thread).status_code == 201
    result = McpAgent(vera).call("post", {"kind": "verify", "body": "checked", "thread": thread, "claim": claim})
    assert result["structuredContent"]["claim"]["state"] == "verified"
