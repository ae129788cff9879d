"""The feed on real servers: two ASGI processes on 127.0.0.1 against the test database (PostgreSQL),
written to through one and waited on through the other."""
import threading
import time

import pytest

from forum.actors import Actor
from forum.tokens import token_revoke
from tests.feed.conftest import SERVER_HEARTBEAT_SECONDS, SERVER_STREAMS_PER_TOKEN, gauge, until

OPERATOR = Actor.for_operator("tests")

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def in_background(call, held_on=None):
    """Run call() in a thread; returns a join() that gives its result and the time it finished. With
    `held_on` (a server's port), once that server holds one more waiting call than before: call()'s."""
    outcome = {}
    held_before = gauge(held_on, "parley_held_waits") if held_on else None

    def run():
        outcome["result"] = call()
        outcome["at"] = time.monotonic()

    worker = threading.Thread(target=run)
    worker.start()
    if held_on:
        until(lambda: gauge(held_on, "parley_held_waits") > held_before or not worker.is_alive(),
              "the waiting call being held")

    def join():
        worker.join(40)
        return outcome["result"], outcome["at"]
    return join


def test_a_waiter_in_one_process_is_woken_within_a_second_by_a_post_through_another(servers, live, alice, bob):
    first, second = servers
    waiter, writer = live(first, bob), live(second, alice)
    cursor = waiter.get("/api/v1/inbox")[1]["cursor"]
    join = in_background(lambda: waiter.get("/api/v1/inbox", wait=20, since=cursor), held_on=first)
    posted = time.monotonic()
    thread = writer.say("ask", "Who wakes up?")["thread"]["id"]
    (status, page), woken = join()
    assert status == 200
    assert [item["id"] for item in page["items"]] == [thread]
    assert woken - posted < 1.0


def test_an_event_waiter_on_one_thread_sleeps_through_other_threads(servers, live, alice, bob):
    first, second = servers
    waiter, writer = live(first, bob), live(second, alice)
    watched = writer.say("ask", "Watched")["thread"]["id"]
    other = writer.say("ask", "Elsewhere")["thread"]["id"]
    cursor = waiter.get(f"/api/v1/threads/{watched}/events")[1]["cursor"]
    join = in_background(lambda: waiter.get(f"/api/v1/threads/{watched}/events", wait=20, cursor=cursor),
                         held_on=first)
    live(second, bob).say("answer", "not the watched one", thread=other)
    time.sleep(0.5)
    posted = time.monotonic()
    live(second, bob).say("answer", "the watched one", thread=watched)
    (status, page), woken = join()
    assert [(event["thread"], event["label"]) for event in page["items"]] == [(watched, "answer")]
    assert woken - posted < 1.0


def test_a_long_poll_that_times_out_returns_empty_with_the_cursor_unchanged(servers, live, alice, bob):
    live(servers[1], alice).say("ask", "Before the cursor")
    cursor = live(servers[0], bob).get("/api/v1/inbox")[1]["cursor"]
    started = time.monotonic()
    status, page = live(servers[0], bob).get("/api/v1/inbox", wait=2, since=cursor)
    assert 2 <= time.monotonic() - started < 4
    assert (status, page) == (200, {"items": [], "cursor": cursor})


def test_the_inbox_long_poll_hides_a_question_of_the_callers_own_extension(servers, live, alice):
    first, second = servers
    cursor = live(first, alice).get("/api/v1/inbox", extension="scout")[1]["cursor"]
    join = in_background(lambda: live(first, alice).get("/api/v1/inbox", extension="scout", wait=3, since=cursor),
                         held_on=first)
    live(second, alice).say("ask", "Asked by my own scout", **{"from": {"extension": "scout"}})
    (status, page), _ = join()
    assert (status, page) == (200, {"items": [], "cursor": cursor})


def test_a_stream_opened_without_a_cursor_starts_with_what_happens_from_then_on(servers, live, alice, bob):
    first, second = servers
    writer = live(second, alice)
    writer.say("ask", "Before the stream")
    stream = live(first, bob).stream()
    try:
        assert stream.status == 200
        later = writer.say("ask", "After the stream opened")["thread"]["id"]
        (_, event), = stream.events(1)
        assert (event["thread"], event["label"]) == (later, "ask")
    finally:
        stream.close()


def test_a_resumed_stream_delivers_every_event_exactly_once(servers, live, alice, bob, mod):
    first, second = servers
    writer, reader = live(second, alice), live(first, bob)
    start = reader.get("/api/v1/events")[1]["cursor"]
    stream = reader.stream(since=start)
    threads = [writer.say("ask", f"Question {n}")["thread"]["id"] for n in range(3)]
    seen = stream.events(2)
    stream.close()  # the connection drops after two events; more happen meanwhile
    for thread in threads:
        live(second, bob).say("answer", "an answer", thread=thread)
    live(second, mod).say("close", "closed by moderation", thread=threads[0])
    resumed = live(second, bob).stream(last_event_id=seen[-1][0], since=start)  # the header wins
    try:
        seen += resumed.events(5)
        assert resumed.next_event(timeout=1.5) is None
    finally:
        resumed.close()
    expected = [event["id"] for event in reader.get("/api/v1/events", since=start)[1]["items"]]
    assert len(expected) == 7
    assert [event["id"] for _, event in seen] == expected
    cursors = [cursor for cursor, _ in seen]
    assert len(set(cursors)) == len(cursors)


def test_the_inbox_stream_carries_only_what_enters_the_callers_inbox(servers, live, alice, bob):
    first, second = servers
    as_scout = live(first, alice).stream(inbox="1", extension="scout")
    as_line = live(second, alice).stream(inbox="1")
    try:
        own = live(second, alice).say("ask", "Mine, asked by the scout", **{"from": {"extension": "scout"}})
        theirs = live(first, bob).say("ask", "Bob asks")["thread"]["id"]
        live(first, alice).say("answer", "answered by alice", thread=theirs)  # not a question: not an entry
        # The scout never sees its own question; the line's unnamed extension may answer it (§3).
        assert [event["id"] for _, event in as_scout.events(1)] == [theirs]
        assert [event["id"] for _, event in as_line.events(2)] == [own["thread"]["id"], theirs]
        assert as_scout.next_event(timeout=1.5) is None
    finally:
        as_scout.close()
        as_line.close()


def test_streams_past_the_per_token_limit_are_refused_across_processes(servers, live, bob):
    opened = [live(servers[n % 2], bob).stream() for n in range(SERVER_STREAMS_PER_TOKEN)]
    try:
        assert [stream.status for stream in opened] == [200] * SERVER_STREAMS_PER_TOKEN
        refused = live(servers[0], bob).stream()
        assert refused.status == 409
        assert refused.refusal()["error"]["detail"]["limit"] == "streams_per_token_max"
        closed_on = servers[(SERVER_STREAMS_PER_TOKEN - 1) % 2]  # where the last one was opened
        streaming = gauge(closed_on, "parley_open_streams")
        opened.pop().close()
        until(lambda: gauge(closed_on, "parley_open_streams") < streaming, "the server noticing the client gone")
        again = live(servers[1], bob).stream()
        assert again.status == 200
        opened.append(again)
    finally:
        for stream in opened:
            stream.close()


def test_a_quiet_stream_sends_a_heartbeat_comment(servers, live, bob):
    stream = live(servers[0], bob).stream()
    try:
        assert stream.next_event(timeout=2.5) is None
        assert ": heartbeat" in stream.comments
    finally:
        stream.close()


def test_a_stream_whose_token_is_revoked_ends_with_a_token_invalid_error_event(servers, live, alice, bob):
    first, second = servers
    stream = live(first, bob).stream()
    try:
        assert stream.status == 200
        token_revoke(OPERATOR, bob.pk)
        live(second, alice).say("ask", "Posted after the revocation")
        _, body = stream.next_event(timeout=SERVER_HEARTBEAT_SECONDS + 3)
        assert (stream.kind, body["error"]["reason"]) == ("error", "token_invalid")
        assert stream.ended(timeout=2)
        reconnected = live(first, bob).stream()
        assert reconnected.status == 401  # what a reconnecting client then hears
        reconnected.close()
    finally:
        stream.close()


def test_streams_past_the_per_token_limit_are_refused_within_one_process(servers, live, bob):
    opened = [live(servers[0], bob).stream() for _ in range(SERVER_STREAMS_PER_TOKEN)]
    try:
        refused = live(servers[0], bob).stream()
        assert [stream.status for stream in opened] == [200] * SERVER_STREAMS_PER_TOKEN
        assert (refused.status, refused.refusal()["error"]["detail"]["limit"]) == (409, "streams_per_token_max")
    finally:
        for stream in opened:
            stream.close()
