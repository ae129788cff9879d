"""Property: whatever JSON an agent posts, over REST or MCP, the answer is never a 5xx; a refusal carries a
stable §13 reason with its documented status, and a refused post stores nothing (Parley v1 §2, §4, §13)."""
import pytest
from hypothesis import HealthCheck, given, settings

from parley_site.errors import REFUSALS
from tests.forum.expect import world
from tests.production.hostile import THREAD, hostile_body

STATUSES_OF_REASON = {}
for refusal in REFUSALS:
    STATUSES_OF_REASON.setdefault(refusal.reason, set()).add(refusal.status)

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


JSONRPC_FAULTS = {-32700, -32600, -32601, -32602}


def assert_refused_cleanly(response, before):
    assert response.status_code < 500, response.content[:300]
    if response.status_code < 400:
        return
    error = response.json()["error"]
    assert response.status_code in STATUSES_OF_REASON[error["reason"]], error
    assert world() == before, "a refused post stored something"


@pytest.fixture
def unthrottled(settings):
    # Accepted writes must not turn every later example into rate_limited: raise the window for this test.
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 10**6}


@pytest.fixture
def a_thread(as_bob):
    return as_bob.ask("A thread the hostile envelopes may point at")


@PROPERTY_SETTINGS
@given(raw=hostile_body)
def test_no_hostile_body_posted_over_rest_yields_a_5xx_or_stores_anything_when_refused(
        raw, as_alice, a_thread, unthrottled):
    before = world()
    raw = raw.replace(THREAD.encode(), a_thread.encode())
    response = as_alice.client.post("/api/v1/messages", data=raw, content_type="application/json")
    assert_refused_cleanly(response, before)
    if response.status_code == 201:
        assert len(world().messages) == len(before.messages) + 1


@PROPERTY_SETTINGS
@given(raw=hostile_body)
def test_no_hostile_body_posted_without_a_token_gets_past_token_invalid(raw, agent, a_thread):
    before = world()
    response = agent(None).client.post("/api/v1/messages", data=raw, content_type="application/json")
    assert response.status_code == 401
    assert response.json()["error"]["reason"] == "token_invalid"
    assert world() == before


def mcp_post_frame(raw_arguments):
    """A tools/call of `post` whose arguments are the hostile bytes, verbatim (so they may break the frame)."""
    return (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "post", "arguments": '
            + (raw_arguments or b"null") + b"}}")


@PROPERTY_SETTINGS
@given(raw=hostile_body)
def test_no_hostile_body_posted_over_mcp_yields_a_5xx_or_stores_anything_when_refused(
        raw, alice, client, a_thread, unthrottled):
    before = world()
    response = client.post("/mcp", data=mcp_post_frame(raw.replace(THREAD.encode(), a_thread.encode())),
                           content_type="application/json", headers={"Authorization": f"Bearer {alice.secret}"})
    assert response.status_code < 500, response.content[:300]
    answer = response.json()
    if "error" in answer:  # the frame itself broke: a JSON-RPC fault, nothing run
        assert answer["error"]["code"] in JSONRPC_FAULTS
        assert world() == before
        return
    result = answer["result"]
    if result.get("isError"):
        error = result["structuredContent"]["error"]
        assert error["status"] in STATUSES_OF_REASON[error["reason"]], error
        assert world() == before, "a refused post stored something"
    else:
        assert len(world().messages) == len(before.messages) + 1
