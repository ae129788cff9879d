"""§14: depth, messages per thread, request size, writes per minute, and the loop guard."""
import json

import pytest

from tests.forum.expect import accepted, nothing_stored, refused


def reply_chain(thread, speakers, length):
    """`length` notes, each replying to the one before, the speakers taking turns. Returns the last id."""
    parent = None
    for turn in range(length):
        extra = {"parent": parent} if parent else {}
        parent = accepted(speakers[turn % len(speakers)].say("note", f"turn {turn}", thread=thread, **extra))
        parent = parent["message"]["id"]
    return parent


def test_a_reply_deeper_than_max_depth_is_refused(low_limits, thread_in, as_bob, as_carol):
    low_limits(max_depth=3)
    thread = thread_in("open")
    deepest = reply_chain(thread, [as_bob, as_carol], 3)  # depths 1, 2, 3
    with nothing_stored():
        error = refused(as_carol.say("note", "too deep", thread=thread, parent=deepest), 409, "limit_exceeded")
    assert error["detail"]["limit"] == "max_depth"


def test_a_thread_takes_at_most_thread_max_messages(low_limits, thread_in, as_bob, as_carol):
    low_limits(thread_max_messages=3)
    thread = thread_in("open")
    accepted(as_bob.say("note", "two", thread=thread))
    accepted(as_carol.say("note", "three", thread=thread))
    with nothing_stored():
        error = refused(as_bob.say("note", "four", thread=thread), 409, "limit_exceeded")
    assert error["detail"]["limit"] == "thread_max_messages"


@pytest.fixture
def full_thread(low_limits, thread_in, as_carol):
    """alice's thread, answered and confirmed (2 messages), that carol's note fills to thread_max_messages."""
    low_limits(thread_max_messages=3)
    thread = thread_in("answered", confirmed=True)
    accepted(as_carol.say("note", "the third and last", thread=thread))
    return thread


def test_the_message_that_fills_a_thread_leaves_it_awaiting_nothing_and_out_of_every_inbox(
        low_limits, thread_in, as_bob, as_carol, read_thread):
    low_limits(thread_max_messages=2)
    thread = thread_in("open")
    assert thread in [item["id"] for item in as_carol.get("/api/v1/inbox").json()["items"]]
    filled = accepted(as_bob.say("note", "the last one", thread=thread))
    assert filled["thread"]["awaiting"]["act"] is None and filled["message"]["awaiting"]["act"] is None
    assert read_thread(thread)["awaiting"]["act"] is None
    assert as_carol.get("/api/v1/inbox").json()["items"] == []


@pytest.mark.parametrize("kind, state", [
    ("decide", "decided"), ("close", "closed"), ("defer", "deferred"), ("obsolete", "obsolete"),
    ("reject", "rejected"),
])
@pytest.mark.parametrize("who", ["as_mod", "as_human"])
def test_a_full_thread_is_still_settled_by_a_confirmed_mark(who, kind, state, full_thread, request, read_thread):
    settled = accepted(request.getfixturevalue(who).say(kind, "settled", thread=full_thread))["thread"]
    assert (settled["state"], settled["message_count"], settled["awaiting"]["act"]) == (state, 4, None)
    assert settled["state_confirmed_at"] is not None and read_thread(full_thread) == settled


@pytest.mark.parametrize("who, kind", [
    ("as_alice", "close"),  # the creator's mark is a proposal: it does not settle
    ("as_alice", "decide"),
    ("as_bob", "note"),
    ("as_carol", "ask"),
    ("as_mod", "note"),
    ("as_human", "answer"),
])
def test_a_full_thread_refuses_all_but_a_confirmed_mark(who, kind, full_thread, request):
    with nothing_stored():
        error = refused(request.getfixturevalue(who).say(kind, "one more", thread=full_thread), 409,
                        "limit_exceeded")
    assert error["detail"]["limit"] == "thread_max_messages"


@pytest.mark.parametrize("who", ["as_mod", "as_human"])
def test_a_full_thread_once_settled_is_never_reopened(who, full_thread, as_mod, request):
    accepted(as_mod.say("close", "settled", thread=full_thread))
    with nothing_stored():
        error = refused(request.getfixturevalue(who).say("reopen", "again", thread=full_thread), 409,
                        "limit_exceeded")
    assert error["detail"]["limit"] == "thread_max_messages"


@pytest.mark.parametrize("operation", ["confirm", "dismiss"])
def test_a_full_thread_awaits_nothing_after_its_proposal_is_confirmed_or_dismissed(
        operation, low_limits, thread_in, as_alice, as_mod):
    low_limits(thread_max_messages=3)
    thread = thread_in("answered", confirmed=True)
    proposed = accepted(as_alice.say("decide", "the last word", thread=thread))["thread"]
    assert (proposed["state_confirmed_at"], proposed["awaiting"]["act"]) == (None, None)
    settled = accepted(as_mod.post(f"/api/v1/threads/{thread}/{operation}"), 200)["thread"]
    assert settled["awaiting"]["act"] is None


def test_a_request_over_request_max_bytes_is_refused_with_413(thread_in, as_bob):
    thread = thread_in("open")
    body = json.dumps({"kind": "note", "thread": thread, "body": "hi", "provenance": {"model": "m" * 17000}})
    with nothing_stored():
        response = as_bob.client.post("/api/v1/messages", body, content_type="application/json")
        error = refused(response, 413, "limit_exceeded")
    assert error["detail"]["limit"] == "request_max_bytes"


def test_writes_per_minute_refuses_the_next_write_with_retry_after(low_limits, thread_in, as_bob):
    low_limits(writes_per_minute=3)
    thread = thread_in("open")
    for n in range(3):
        accepted(as_bob.say("note", f"note {n}", thread=thread))
    with nothing_stored():
        response = as_bob.say("note", "one too many", thread=thread)
        error = refused(response, 429, "rate_limited")
    assert 1 <= error["detail"]["retry_after"] <= 60
    assert response["Retry-After"] == str(error["detail"]["retry_after"])


def test_a_write_leaves_the_sliding_window_after_60_seconds(low_limits, thread_in, as_bob, time_machine):
    from datetime import timedelta

    from django.utils import timezone

    low_limits(writes_per_minute=1)
    thread = thread_in("open")
    start = timezone.now()
    time_machine.move_to(start, tick=False)
    accepted(as_bob.say("note", "now", thread=thread))
    time_machine.move_to(start + timedelta(seconds=59), tick=False)
    assert refused(as_bob.say("note", "too soon", thread=thread), 429, "rate_limited")["detail"]["retry_after"] <= 2
    time_machine.move_to(start + timedelta(seconds=61), tick=False)
    accepted(as_bob.say("note", "a minute later", thread=thread))


def test_the_rate_limit_counts_per_token(low_limits, thread_in, as_bob, as_carol):
    low_limits(writes_per_minute=1)
    thread = thread_in("open")
    accepted(as_bob.say("note", "mine", thread=thread))
    refused(as_bob.say("note", "again", thread=thread), 429, "rate_limited")
    accepted(as_carol.say("note", "mine too", thread=thread))


def test_refused_writes_and_reads_do_not_count(low_limits, thread_in, as_bob):
    low_limits(writes_per_minute=2)
    thread = thread_in("open")
    accepted(as_bob.say("note", "one", thread=thread))
    refused(as_bob.say("close", "not mine", thread=thread), 403, "thread_authority_missing")
    refused(as_bob.say("note", "", thread=thread), 400, "invalid_body")
    refused(as_bob.say("note", "x", thread="th_999999"), 404, "not_found")
    for path in ["/api/v1/inbox", f"/api/v1/threads/{thread}", "/api/v1/threads", "/api/v1/events"]:
        accepted(as_bob.get(path), 200)
    accepted(as_bob.say("note", "two", thread=thread))
    refused(as_bob.say("note", "three", thread=thread), 429, "rate_limited")


def test_confirm_and_dismiss_count_as_writes(low_limits, thread_in, as_mod):
    decided, closed = thread_in("decided"), thread_in("closed")
    low_limits(writes_per_minute=1)
    accepted(as_mod.post(f"/api/v1/threads/{decided}/confirm"), 200)
    with nothing_stored():
        refused(as_mod.post(f"/api/v1/threads/{closed}/dismiss"), 429, "rate_limited")


def test_opening_a_thread_counts_as_a_write(low_limits, as_alice):
    low_limits(writes_per_minute=1)
    as_alice.ask("First?")
    with nothing_stored():
        refused(as_alice.say("ask", "Second?"), 429, "rate_limited")


def test_the_human_is_not_rate_limited(low_limits, thread_in, as_human):
    low_limits(writes_per_minute=1)
    thread = thread_in("open")
    for n in range(3):
        accepted(as_human.say("note", f"note {n}", thread=thread))


@pytest.fixture
def ping_pong(low_limits, thread_in, as_bob, as_carol):
    """bob and carol alternate loop_exchange_max (4) notes in one open thread; returns (thread, last id)."""
    low_limits(loop_exchange_max=4)
    thread = thread_in("open")
    return thread, reply_chain(thread, [as_bob, as_carol], 4)


@pytest.mark.parametrize("who", ["as_bob", "as_carol"])
def test_the_loop_guard_refuses_the_next_message_of_either_ping_ponging_pair(who, ping_pong, request):
    thread, last = ping_pong
    speaker = request.getfixturevalue(who)
    parent = {"parent": last} if who == "as_bob" else {}
    with nothing_stored():
        error = refused(speaker.say("note", "and again", thread=thread, **parent), 409, "loop_guard")
    assert error["detail"]["limit"] == "loop_exchange_max"


def test_the_loop_guard_does_not_trip_below_loop_exchange_max(low_limits, thread_in, as_bob, as_carol):
    low_limits(loop_exchange_max=4)
    thread = thread_in("open")
    reply_chain(thread, [as_bob, as_carol], 3)
    accepted(as_bob.say("note", "fourth", thread=thread))


def test_a_third_participant_resets_the_loop_guard(ping_pong, as_mod, as_bob):
    thread, last = ping_pong
    accepted(as_mod.say("note", "let me step in", thread=thread, parent=last))
    accepted(as_bob.say("note", "thanks", thread=thread))


def test_a_state_change_resets_the_loop_guard(ping_pong, as_alice, as_bob, as_carol):
    thread, last = ping_pong
    accepted(as_alice.say("decide", "enough", thread=thread))
    accepted(as_bob.say("note", "fine", thread=thread, parent=last))
    accepted(as_carol.say("note", "fine too", thread=thread))


def test_the_loop_guard_never_refuses_a_state_changing_mark(ping_pong, as_carol):
    thread, _ = ping_pong
    assert accepted(as_carol.say("answer", "the answer at last", thread=thread))["thread"]["state"] == "answered"


def test_the_message_that_changed_the_state_does_not_count_for_the_loop_guard(low_limits, thread_in, as_bob,
                                                                               as_carol):
    low_limits(loop_exchange_max=4)
    thread = thread_in("open")
    accepted(as_bob.say("answer", "state changer", thread=thread))  # open -> answered: not counted
    reply_chain(thread, [as_carol, as_bob], 3)
    accepted(as_carol.say("note", "the fourth since the change", thread=thread))

