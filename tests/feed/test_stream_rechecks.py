"""An open stream checks its caller again (§16, §3): at each heartbeat and after each wake, before reading.
In process, driving the stream's frames directly; tests/feed/test_live.py does it over HTTP."""
import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.test import Client, RequestFactory
from django.utils import timezone

from feed import follow
from feed.caller_checks import CallerChecks
from feed.follow import Subscription
from feed.stream import head, sse_frames, stream_for
from feed.views import authenticate
from forum.actors import Actor
from forum.selectors import actor_key
from forum.tokens import token_authenticate, token_revoke, token_rotate, token_update

OPERATOR = Actor.for_operator("tests")

pytestmark = pytest.mark.django_db(transaction=True)  # the stream reads on threads of its own


@pytest.fixture(autouse=True)
def read_pool(monkeypatch):
    """A read pool of one thread whose connection is closed afterwards (PostgreSQL would otherwise keep
    the test database open)."""
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setattr(follow, "READS", pool)
    yield
    pool.submit(lambda: connection.close()).result()  # the pool thread's own connection
    pool.shutdown()


@pytest.fixture
def heartbeat(settings):
    def set_to(seconds):
        settings.PARLEY_FEED = {**settings.PARLEY_FEED, "heartbeat_seconds": seconds}
    return set_to


def opened(token, args=None):
    """A stream as the door opens it: starting from now, its first (empty) read done."""
    stream = stream_for(Actor.for_token(token), args or {}, 50)
    stream.after = head(stream.listing.scope)
    assert stream.next_items() == []
    return stream


def opened_with_secret(token):
    """A stream as the door opens it for a request bearing the token's secret."""
    stream = stream_for(token_authenticate(token.secret), {}, 50)
    stream.after = head(stream.listing.scope)
    assert stream.next_items() == []
    return stream


def following(stream):
    """The stream's frames, its subscription taken on the running event loop as the door takes it."""
    return sse_frames(stream, [], Subscription(asyncio.get_running_loop(), stream.listing.topic))


def run(scenario):
    async_to_sync(scenario)()


async def next_frame(frames, seconds=10):
    return await asyncio.wait_for(anext(frames), seconds)


async def assert_last_frame(frames, reason, **detail):
    event, data = (await next_frame(frames)).strip().split("\n")
    error = json.loads(data.removeprefix("data: "))["error"]
    assert (event, error["reason"]) == ("event: error", reason)
    assert detail.items() <= error["detail"].items()
    with pytest.raises(StopAsyncIteration):
        await next_frame(frames)


def test_a_stream_whose_token_is_revoked_ends_at_the_next_heartbeat(bob, heartbeat):
    heartbeat(1)
    stream = opened(bob)

    async def scenario():
        frames = following(stream)
        assert await next_frame(frames) == "retry: 2000\n\n"
        assert await next_frame(frames) == ": heartbeat\n\n"
        await sync_to_async(token_revoke)(OPERATOR, bob.pk)
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


def test_a_stream_whose_token_expires_ends_at_the_next_heartbeat(bob, heartbeat):
    heartbeat(1)
    stream = opened(bob)
    expired = timezone.now() - timedelta(seconds=1)  # the expiry is a time: none passes while the test runs

    async def scenario():
        frames = following(stream)
        assert await next_frame(frames) == "retry: 2000\n\n"
        assert await next_frame(frames) == ": heartbeat\n\n"
        await sync_to_async(token_update)(OPERATOR, bob.pk, bob.rights, bob.label, expires_at=expired)
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


def test_a_stream_opened_with_a_secret_rotated_away_ends_at_once(as_alice, bob, heartbeat):
    heartbeat(60)  # the refusal cannot come from a heartbeat
    stream = opened_with_secret(bob)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        await sync_to_async(token_rotate)(OPERATOR, bob.pk)
        await sync_to_async(as_alice.ask)("Posted after the rotation")  # wakes a stream on SQLite too
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


def test_a_stream_opened_with_the_old_secret_ends_when_the_grace_ends(bob, heartbeat):
    heartbeat(60)
    stream = opened_with_secret(bob)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        await sync_to_async(token_rotate)(OPERATOR, bob.pk, 2)
        loop = asyncio.get_running_loop()
        rotated_at = loop.time()
        await assert_last_frame(frames, "token_invalid")
        assert 1.5 < loop.time() - rotated_at < 5
    run(scenario)


def test_a_stream_opened_with_the_old_secret_goes_on_within_the_grace(bob, heartbeat):
    heartbeat(1)
    stream = opened_with_secret(bob)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        await sync_to_async(token_rotate)(OPERATOR, bob.pk, 60)
        assert [await next_frame(frames) for _ in range(2)] == [": heartbeat\n\n"] * 2
        await frames.aclose()
    run(scenario)


def test_a_stream_opened_with_the_new_secret_goes_on_when_the_old_one_stops(bob, heartbeat):
    heartbeat(1)
    bob.secret = token_rotate(OPERATOR, bob.pk, 60).secret
    stream = opened_with_secret(bob)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        await sync_to_async(token_rotate)(OPERATOR, bob.pk, 60)  # the new secret is now in its grace
        assert [await next_frame(frames) for _ in range(2)] == [": heartbeat\n\n"] * 2
        await frames.aclose()
    run(scenario)


def test_a_revoked_token_gets_no_item_after_a_wake_only_the_refusal(as_alice, bob, heartbeat):
    heartbeat(60)  # the refusal cannot come from a heartbeat
    stream = opened(bob)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        first = await sync_to_async(as_alice.ask)("Seen while the token is valid")
        assert json.loads((await next_frame(frames)).split("data: ")[1])["thread"] == first
        await sync_to_async(token_revoke)(OPERATOR, bob.pk)
        await sync_to_async(as_alice.ask)("Posted after the revocation")
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


@pytest.mark.postgres
def test_on_postgresql_a_revocation_ends_the_stream_at_once(bob, heartbeat):
    """The revocation itself wakes the stream (migration 0007): no post and no heartbeat is needed."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's notes")
    heartbeat(60)
    stream = opened(bob)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        last = asyncio.ensure_future(next_frame(frames, seconds=20))  # the stream goes to wait for a note
        await asyncio.sleep(1)  # past the wake-everyone of the process's listener connecting
        await sync_to_async(token_revoke)(OPERATOR, bob.pk)
        event, data = (await last).strip().split("\n")
        assert (event, json.loads(data.removeprefix("data: "))["error"]["reason"]) == ("event: error",
                                                                                    "token_invalid")
    run(scenario)


@pytest.mark.parametrize("persona, args, kept, lost", [
    ("bob", {}, {"write"}, "read"),
    ("mod", {"inbox": "1", "awaiting": "confirmation"}, {"read", "write"}, "lock"),
])
def test_a_stream_whose_line_loses_a_right_it_needs_ends_token_right_missing(request, heartbeat, persona, args,
                                                                          kept, lost):
    heartbeat(1)
    token = request.getfixturevalue(persona)
    stream = opened(token, args)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        await sync_to_async(token_update)(OPERATOR, token.pk, kept, "")
        await assert_last_frame(frames, "token_right_missing", right=lost)
    run(scenario)


def test_a_stream_goes_on_while_its_line_keeps_its_rights(bob, heartbeat):
    heartbeat(1)
    stream = opened(bob)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        await sync_to_async(token_update)(OPERATOR, bob.pk, {"read"}, "renamed")
        assert [await next_frame(frames) for _ in range(2)] == [": heartbeat\n\n"] * 2
        await frames.aclose()
    run(scenario)


def test_a_staff_users_stream_ends_when_the_user_is_no_longer_staff(human, heartbeat):
    heartbeat(1)
    stream = stream_for(Actor.for_user(human), {}, 50)
    stream.after = head(stream.listing.scope)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        human.is_staff = False
        await sync_to_async(human.save)()
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


def opened_in_a_session(user):
    """A staff user's stream as the door opens it for the console's live script: signed in through a
    session of its own; answers the stream and the client holding that session."""
    client = Client()
    client.force_login(user)
    request = RequestFactory().get("/api/v1/events/stream")
    request.session, request.user = SessionStore(client.session.session_key), user
    stream = stream_for(authenticate(request), {}, 50)
    stream.after = head(stream.listing.scope)
    return stream, client


def test_a_staff_users_stream_ends_when_its_session_logs_out(human, heartbeat):
    heartbeat(1)
    stream, client = opened_in_a_session(human)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        assert await next_frame(frames) == ": heartbeat\n\n"
        await sync_to_async(client.logout)()
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


def test_a_staff_users_stream_ends_when_the_password_changes(human, heartbeat):
    heartbeat(1)
    stream, _ = opened_in_a_session(human)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        assert await next_frame(frames) == ": heartbeat\n\n"
        human.set_password("a-new-password-4711")
        await sync_to_async(human.save)()
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


def test_a_staff_users_stream_goes_on_while_its_session_stands(human, heartbeat):
    heartbeat(1)
    stream, _ = opened_in_a_session(human)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        assert [await next_frame(frames) for _ in range(2)] == [": heartbeat\n\n"] * 2
        await frames.aclose()
    run(scenario)


def test_streams_woken_together_share_one_line_check(alice, bob, mallory):
    sent = []

    async def run_query(function, keys):
        sent.append(keys)
        return {key: key for key in keys}

    checks = CallerChecks(run_query)
    actors = [Actor.for_token(token) for token in (alice, bob, mallory, bob)]

    async def scenario():
        answers = await asyncio.gather(*(checks.current(actor) for actor in actors))
        assert answers == [actor_key(actor) for actor in actors]
        assert sent == [frozenset(map(actor_key, actors))]
        await checks.current(actors[0])  # asked later: a check of its own, sent after it was asked for
        assert len(sent) == 2
    run(scenario)


def test_a_revoked_token_is_not_served_while_its_stream_catches_up_from_an_old_cursor(as_alice, bob, heartbeat):
    heartbeat(60)  # the refusal cannot come from a heartbeat
    for number in range(3):
        as_alice.ask(f"Asked before the stream opened, {number}")
    stream = stream_for(Actor.for_token(bob), {}, 1)  # one item per read: catching up takes several
    first_items = stream.next_items()

    async def scenario():
        frames = sse_frames(stream, first_items, Subscription(asyncio.get_running_loop(), stream.listing.topic))
        assert await next_frame(frames) == "retry: 2000\n\n"
        assert "data: " in await next_frame(frames)
        await sync_to_async(token_revoke)(OPERATOR, bob.pk)
        await assert_last_frame(frames, "token_invalid")
    run(scenario)


def test_a_stream_of_a_thread_that_goes_out_of_the_callers_sight_ends_not_found(as_alice, as_carol, bob,
                                                                               heartbeat):
    """A profile's sight (forum.access) narrowing while a stream follows a thread: the next read refuses,
    and the stream's last frame says so, as a new request would be answered (§20)."""
    from django.db.models import Q

    from forum import profiles

    heartbeat(60)
    thread = as_alice.ask("Followed by bob")
    stream = opened(bob, {"thread": int(thread.removeprefix("th_"))})
    hidden = profiles.Profile(name="sight-test", manifest=dict,
                              sight=lambda actor: Q(pk__in=[]) if actor.identity == bob.identity else None)

    async def scenario():
        frames = following(stream)
        await next_frame(frames)
        profiles.register(hidden)
        try:
            assert (await sync_to_async(as_carol.say)("answer", "Port 8000.", thread=thread)).status_code == 201
            await assert_last_frame(frames, "not_found", object="thread")
        finally:
            del profiles.PROFILES["sight-test"]
    run(scenario)
