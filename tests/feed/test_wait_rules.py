"""`wait` on inbox and list_events (§16, §14.1), in process: its bounds, its refusals, its answers."""
import asyncio
import json
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.utils import timezone

from feed.slots import SLOTS, WAITS, owner_key
from forum.actors import Actor
from forum.dispatch import call
from forum.operations import INBOX
from forum.tokens import token_revoke, token_rotate, token_update
from parley_site.errors import InvalidBody
from tests.asgi_client import McpAsgiClient
from tests.conftest import Agent
from tests.mcp_bridge.conftest import McpAgent, refusal

OPERATOR = Actor.for_operator("tests")

# A held call re-reads, and checks its caller again, on threads of the feed's own, which see only
# committed data.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def as_blind(make_token, agent):
    return agent(make_token("blind", ("write",)))


@pytest.mark.parametrize("path", ["/api/v1/inbox", "/api/v1/events"])
@pytest.mark.parametrize("wait", ["31", "-1", "1.5", "soon"])
def test_it_refuses_a_wait_outside_zero_to_thirty_whole_seconds(as_bob, path, wait):
    response = as_bob.get(path, wait=wait)
    assert response.status_code == 400
    assert response.json()["error"]["reason"] == "invalid_body"
    assert response.json()["error"]["detail"]["field"] == "wait"


def test_the_operation_refuses_a_wait_above_thirty_for_every_door(bob):
    with pytest.raises(InvalidBody) as refused:
        call(INBOX, Actor.for_token(bob), {"wait": 31})
    assert refused.value.detail == {"field": "wait"}


def test_mcp_refuses_a_wait_above_thirty_like_rest(bob):
    error = refusal(McpAgent(bob, McpAsgiClient()).call("list_events", {"wait": 31}))
    assert (error["reason"], error["status"], error["detail"]) == ("invalid_body", 400, {"field": "wait"})


def test_an_mcp_wait_that_times_out_returns_empty_with_the_same_cursor(as_alice, bob):
    as_alice.ask("Seen before the cursor")
    agent = McpAgent(bob, McpAsgiClient())
    cursor = agent.call("inbox")["structuredContent"]["cursor"]
    started = time.monotonic()
    result = agent.call("inbox", {"wait": 1, "since": cursor})
    assert time.monotonic() - started >= 1
    assert result["structuredContent"] == {"items": [], "cursor": cursor}


def test_a_wait_answers_at_once_when_something_is_already_there(as_alice, as_bob):
    thread = as_alice.ask("Anyone there?")
    started = time.monotonic()
    response = as_bob.get("/api/v1/inbox", wait=30)
    assert response.status_code == 200
    assert [item["id"] for item in response.json()["items"]] == [thread]
    assert time.monotonic() - started < 2


def test_a_wait_that_times_out_returns_empty_with_the_same_cursor(as_alice, as_bob):
    as_alice.ask("Seen before the cursor")
    cursor = as_bob.get("/api/v1/inbox").json()["cursor"]
    started = time.monotonic()
    response = as_bob.get("/api/v1/inbox", wait=1, since=cursor)
    assert time.monotonic() - started >= 1
    assert response.status_code == 200
    assert response.json() == {"items": [], "cursor": cursor}


def test_an_event_wait_that_times_out_returns_empty_with_the_same_cursor(as_alice, as_bob):
    thread = as_alice.ask("Events?")
    cursor = as_bob.get(f"/api/v1/threads/{thread}/events").json()["cursor"]
    response = as_bob.get(f"/api/v1/threads/{thread}/events", wait=1, cursor=cursor)
    assert response.json() == {"items": [], "cursor": cursor}


def test_a_token_without_read_is_refused_before_any_wait(as_blind):
    started = time.monotonic()
    response = as_blind.get("/api/v1/inbox", wait=30)
    assert response.status_code == 403
    assert response.json()["error"]["reason"] == "token_right_missing"
    assert response.json()["error"]["detail"]["right"] == "read"
    assert time.monotonic() - started < 2


def test_a_wait_on_an_unknown_thread_is_refused_not_found_before_any_wait(as_bob):
    response = as_bob.get("/api/v1/threads/th_999999/events", wait=30)
    assert response.status_code == 404
    assert response.json()["error"]["reason"] == "not_found"


def test_the_moderation_queue_refuses_a_wait_without_lock(as_bob):
    response = as_bob.get("/api/v1/inbox", awaiting="confirmation", wait=30)
    assert response.status_code == 403
    assert response.json()["error"]["detail"]["right"] == "lock"


def test_the_manifest_lists_the_feed_profile_and_its_limits(as_bob, settings):
    feed = as_bob.get("/api/v1/manifest").json()["profiles"]["feed"]
    assert feed["limits"] == {"wait_max_seconds": 30,
                              "streams_per_token_max": settings.PARLEY_FEED["streams_per_token_max"],
                              "waits_per_token_max": settings.PARLEY_FEED["waits_per_token_max"]}
    assert feed["stream"] == "GET /api/v1/events/stream"


def test_the_openapi_document_declares_wait_on_inbox_and_events(as_bob):
    paths = as_bob.get("/api/schema/", format="json").json()["paths"]
    for path in ("/api/v1/inbox", "/api/v1/events", "/api/v1/threads/{ref}/events"):
        wait = next(p for p in paths[path]["get"]["parameters"] if p["name"] == "wait")
        assert (wait["schema"]["minimum"], wait["schema"]["maximum"]) == (0, 30)


@pytest.mark.postgres
def test_a_waiting_call_makes_no_queries_while_it_waits(as_alice, as_bob, django_assert_max_num_queries):
    as_alice.ask("warm the listener up")
    cursor = as_bob.get("/api/v1/inbox", wait=1).json()["cursor"]  # starts this process's listener
    with django_assert_max_num_queries(4):  # the token, one read in its transaction: none while waiting
        assert as_bob.get("/api/v1/inbox", wait=2, since=cursor).json()["items"] == []


def held_calls(*calls):
    """Runs the calls (coroutine functions) together on one event loop, as a server's clients; returns
    their responses in order."""
    async def together():
        return await asyncio.gather(*(call() for call in calls))
    return async_to_sync(together)()


async def until_holding(token, count, seconds=5):
    """Until `count` waits of the token's line hold their slots: the calls started alongside have got that
    far (instead of sleeping and hoping they have)."""
    owner, deadline = owner_key(Actor.for_token(token)), time.monotonic() + seconds
    while SLOTS.held(WAITS, owner) < count:
        assert time.monotonic() < deadline, f"{count} waits did not hold within {seconds} s"
        await asyncio.sleep(0.01)


def rest_wait(agent, seconds):
    return lambda: agent.client.client.get("/api/v1/inbox", {"wait": seconds}, headers=agent.client.defaults)


def test_the_fifth_concurrent_wait_of_one_token_is_refused_limit_exceeded(as_bob, bob):
    mcp_agent = McpAgent(bob, McpAsgiClient())

    async def mcp_wait():
        return await mcp_agent.client.apost(
            "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": "inbox", "arguments": {"wait": 2}}}),
            content_type="application/json", headers=mcp_agent.headers({}))

    async def fifth():
        await until_holding(bob, 4)
        return await rest_wait(as_bob, 2)()
    *held, refused = held_calls(rest_wait(as_bob, 2), rest_wait(as_bob, 2), mcp_wait, mcp_wait, fifth)
    assert [response.status_code for response in held] == [200] * 4
    assert [response.json()["items"] for response in held[:2]] == [[], []]
    assert [response.json()["result"]["isError"] for response in held[2:]] == [False, False]
    assert refused.status_code == 409
    assert refused.json()["error"]["reason"] == "limit_exceeded"
    assert refused.json()["error"]["detail"]["limit"] == "waits_per_token_max"


def test_a_wait_with_something_to_answer_answers_whatever_the_line_holds(as_alice, as_bob, bob):
    thread = as_alice.ask("Already here")

    async def fifth():
        await until_holding(bob, 4)
        return await rest_wait(as_bob, 30)()
    cursor = as_bob.get("/api/v1/inbox").json()["cursor"]
    waits = [lambda: as_bob.client.client.get("/api/v1/inbox", {"wait": 1, "since": cursor},
                                              headers=as_bob.client.defaults)] * 4
    *held, answered = held_calls(*waits, fifth)
    assert [response.status_code for response in held] == [200] * 4
    assert [item["id"] for item in answered.json()["items"]] == [thread]


def test_the_waits_of_one_token_do_not_count_against_another(as_alice, as_bob):
    responses = held_calls(*[rest_wait(as_bob, 1)] * 4, rest_wait(as_alice, 1))
    assert [response.status_code for response in responses] == [200] * 5


def test_a_wait_answers_token_invalid_once_its_token_is_revoked_meanwhile(as_alice, as_bob, bob):
    async def revoke_and_write():
        await until_holding(bob, 1)
        await sync_to_async(token_revoke)(OPERATOR, bob.pk)
        await sync_to_async(as_alice.ask)("Posted after the revocation")  # wakes a waiter on SQLite too
    response, _ = held_calls(rest_wait(as_bob, 10), revoke_and_write)
    assert (response.status_code, response.json()["error"]["reason"]) == (401, "token_invalid")


def test_a_wait_answers_token_invalid_once_its_token_expires_meanwhile(as_alice, as_bob, bob):
    async def expire_and_write():
        await until_holding(bob, 1)
        expired = timezone.now() - timedelta(seconds=1)
        await sync_to_async(token_update)(OPERATOR, bob.pk, bob.rights, bob.label, expires_at=expired)
        await sync_to_async(as_alice.ask)("Posted after the expiry")  # wakes a waiter on SQLite too
    response, _ = held_calls(rest_wait(as_bob, 10), expire_and_write)
    assert (response.status_code, response.json()["error"]["reason"]) == (401, "token_invalid")


def test_a_wait_opened_with_a_secret_rotated_away_answers_token_invalid_at_once(as_alice, as_bob, bob):
    async def rotate():
        await until_holding(bob, 1)
        await sync_to_async(token_rotate)(OPERATOR, bob.pk)
        await sync_to_async(as_alice.ask)("Posted after the rotation")  # wakes a waiter on SQLite too
    started = time.monotonic()
    response, _ = held_calls(rest_wait(as_bob, 10), rotate)
    assert (response.status_code, response.json()["error"]["reason"]) == (401, "token_invalid")
    assert time.monotonic() - started < 5


def test_a_wait_opened_with_the_old_secret_answers_token_invalid_when_the_grace_ends(as_bob, bob):
    async def rotate():
        await until_holding(bob, 1)
        await sync_to_async(token_rotate)(OPERATOR, bob.pk, 1)
    started = time.monotonic()
    response, _ = held_calls(rest_wait(as_bob, 10), rotate)
    assert (response.status_code, response.json()["error"]["reason"]) == (401, "token_invalid")
    assert time.monotonic() - started < 5


def test_a_wsgi_server_refuses_a_wait_at_once_naming_the_fix(bob, agent):
    wsgi_agent = Agent(bob)  # Django's test client is a WSGI handler
    started = time.monotonic()
    response = wsgi_agent.get("/api/v1/inbox", wait=30)
    assert time.monotonic() - started < 1
    assert (response.status_code, response.json()["error"]["reason"]) == (503, "unavailable")
    assert "asgi" in response.json()["error"]["detail"]["fix"]
    assert response["Retry-After"]


def test_a_wsgi_server_answers_a_wait_of_zero_as_any_list(bob):
    assert Agent(bob).get("/api/v1/inbox", wait=0).status_code == 200
