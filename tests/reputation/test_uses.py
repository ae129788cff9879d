"""§21's two uses: `annotate=reputation` on inbox and list_threads (queue_annotation, on by default) and the
tiers of the rate limit (rate_limit, off by default). The served record is written here as the core's job
would serve it: these tests are about what the uses do with it, the policy has its own."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reputation.models import Standing
from tests.conftest import Agent
from tests.forum.expect import refused, world
from tests.mcp_bridge.conftest import McpAgent


def serve(identity, score, tier):
    return Standing.objects.create(identity=identity, scope="global", computed_at=timezone.now(), score=score,
                                   mean=0.5, alpha=1, beta=1, successes=0, failures=0, tier=tier)


def propose(agent):
    """A thread `agent` opens and decides: without lock its decision is a proposal awaiting confirmation (§8)."""
    thread = agent.ask()
    response = agent.say("decide", "We do it.", thread=thread)
    assert response.status_code == 201, response.json()
    assert response.json()["thread"]["awaiting"]["act"] == "confirmation"
    return thread


@pytest.fixture
def as_mod(mod):
    return Agent(mod)


def test_annotate_reputation_gives_each_queued_item_its_proposers_score_and_tier(as_alice, as_bob, as_mod, carol):
    serve(as_bob.identity, 0.71, "established")
    first = propose(as_bob)
    second = propose(Agent(carol))
    plain = as_mod.get("/api/v1/inbox", awaiting="confirmation").json()
    annotated = as_mod.get("/api/v1/inbox", awaiting="confirmation", annotate="reputation").json()
    assert [item["id"] for item in annotated["items"]] == [item["id"] for item in plain["items"]] == [first, second]
    assert annotated["cursor"] == plain["cursor"]
    assert [item["reputation"] for item in annotated["items"]] == [
        {"identity": as_bob.identity, "score": 0.71, "tier": "established"},
        {"identity": carol.identity, "score": 0.0, "tier": "new"}]  # no record served yet
    assert [{k: v for k, v in item.items() if k != "reputation"} for item in annotated["items"]] == plain["items"]


def test_annotate_reputation_on_list_threads_names_the_asker_and_keeps_order_and_cursors(as_alice, as_bob, as_mod):
    serve(as_alice.identity, 0.4, "probation")
    asked = as_alice.ask()
    proposed = propose(as_bob)
    plain = as_mod.get("/api/v1/threads", limit=1).json()
    annotated = as_mod.get("/api/v1/threads", limit=1, annotate="reputation").json()
    assert annotated["cursor"] == plain["cursor"] and [item["id"] for item in annotated["items"]] == [asked]
    assert annotated["items"][0]["reputation"] == {"identity": as_alice.identity, "score": 0.4, "tier": "probation"}
    rest = as_mod.get("/api/v1/threads", cursor=annotated["cursor"], annotate="reputation").json()["items"]
    assert [(item["id"], item["reputation"]["identity"]) for item in rest] == [(proposed, as_bob.identity)]


@pytest.mark.parametrize("path, query", [("/api/v1/inbox", {"awaiting": "confirmation"}), ("/api/v1/threads", {})])
def test_a_page_of_annotated_items_costs_one_query_more_at_most(path, query, as_mod, make_token):
    for handle in ("p1", "p2", "p3", "p4"):
        agent = Agent(make_token(handle))
        serve(agent.identity, 0.5, "probation")
        propose(agent)
    counts = []
    for extra in ({}, {"annotate": "reputation"}):
        with CaptureQueriesContext(connection) as queries:
            response = as_mod.get(path, **query, **extra)
        assert response.status_code == 200 and len(response.json()["items"]) == 4
        counts.append(len(queries))
    assert counts[1] - counts[0] <= 1, counts


def test_the_mcp_tools_take_annotate_in_their_schema_and_answer_the_same(as_alice, as_bob, mod):
    serve(as_bob.identity, 0.71, "established")
    propose(as_bob)
    agent = McpAgent(mod)
    tools = {tool["name"]: tool for tool in agent.request("tools/list").json()["result"]["tools"]}
    for name in ("inbox", "list_threads"):
        assert tools[name]["inputSchema"]["properties"]["annotate"]["enum"] == ["reputation"]
        answer = tools[name]["outputSchema"]["anyOf"][0]
        assert "reputation" in answer["properties"]["items"]["items"]["properties"]
    result = agent.call("inbox", {"awaiting": "confirmation", "annotate": "reputation"})
    rest = Agent(mod).get("/api/v1/inbox", awaiting="confirmation", annotate="reputation").json()
    assert result["structuredContent"] == rest


def test_an_unknown_annotate_value_is_invalid_body(as_mod):
    refused(as_mod.get("/api/v1/inbox", annotate="votes"), 400, "invalid_body", field="annotate")
    refused(as_mod.get("/api/v1/threads", annotate="votes"), 400, "invalid_body", field="annotate")


def test_annotating_needs_lock_as_reading_another_lines_record_does(as_alice, as_bob):
    propose(as_bob)
    refused(as_bob.get("/api/v1/threads", annotate="reputation"), 403, "token_right_missing", right="lock")


def test_an_instance_that_turns_the_annotation_off_refuses_it(as_mod, settings):
    settings.PARLEY_REPUTATION = {**settings.PARLEY_REPUTATION, "queue_annotation": False}
    refused(as_mod.get("/api/v1/inbox", annotate="reputation"), 400, "invalid_body", field="annotate")
    assert "queue_annotation" not in as_mod.get("/api/v1/manifest").json()["profiles"]["reputation"]["uses"]


def test_a_human_asker_has_no_record(human, as_mod):
    from forum.actors import Actor
    from forum.envelope import check_envelope
    from forum.services import message_post

    message_post(Actor.for_user(human), check_envelope({"kind": "ask", "body": "Anyone?"}))
    [item] = as_mod.get("/api/v1/threads", annotate="reputation").json()["items"]
    assert item["reputation"] == {"identity": "human:hannah", "score": None, "tier": None}


# --- rate_limit -------------------------------------------------------------------------------------------

def rate_tiers_on(settings):
    settings.PARLEY_REPUTATION = {**settings.PARLEY_REPUTATION, "rate_limits": True}


def write_until_refused(agent, most):
    """Up to `most` accepted writes (each opens a thread); the count and the first refusal, if any."""
    for number in range(most):
        response = agent.say("ask", f"Question {number}?")
        if response.status_code != 201:
            return number, response
    return most, None


def test_rate_limit_tiers_are_off_by_default_and_the_manifest_lists_what_is_on(as_alice, as_mod, settings):
    assert as_mod.get("/api/v1/manifest").json()["profiles"]["reputation"]["uses"] == ["queue_annotation"]
    written, refusal = write_until_refused(as_alice, 20)
    assert (written, refusal) == (20, None)  # a new line writes past 12 while the use is off
    rate_tiers_on(settings)
    assert as_mod.get("/api/v1/manifest").json()["profiles"]["reputation"]["uses"] == ["queue_annotation",
                                                                                       "rate_limit"]


@pytest.mark.parametrize("tier, allowed", [("new", 12), ("probation", 30), ("established", 60)])
def test_rate_limit_allows_writes_per_minute_by_tier_and_names_the_tier(tier, allowed, as_alice, settings):
    rate_tiers_on(settings)
    if tier != "new":
        serve(as_alice.identity, 0.3 if tier == "probation" else 0.8, tier)
    written, refusal = write_until_refused(as_alice, allowed + 1)
    assert written == allowed
    error = refused(refusal, 429, "rate_limited", tier=tier, limit="writes_per_minute")
    assert error["detail"]["retry_after"] >= 1


def test_a_refused_write_over_the_tier_stores_nothing(as_alice, settings):
    rate_tiers_on(settings)
    write_until_refused(as_alice, 12)
    before = world()
    refused(as_alice.say("ask", "One more?"), 429, "rate_limited", tier="new")
    assert world() == before


def test_a_write_with_the_tiers_off_costs_no_extra_query(as_alice, settings):
    serve(as_alice.identity, 0.8, "established")
    write_until_refused(as_alice, 13)  # past the smallest tier (12), where the tier is read when on
    counts = []
    for on in (False, True):
        settings.PARLEY_REPUTATION = {**settings.PARLEY_REPUTATION, "rate_limits": on}
        with CaptureQueriesContext(connection) as queries:
            assert as_alice.say("ask", f"Is it on={on}?").status_code == 201
        counts.append(len(queries))
    assert counts[1] == counts[0] + 1, counts  # on: the tier's one query; off: none
