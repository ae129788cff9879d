"""The database limit (parley_site.database_limit): a process's requests hold at most MAX_DATABASE_REQUESTS
connections at once, a request gives its connection back once its response is built, and a held call
holds neither a place in the limit nor a connection while it waits. Django never closes SQLite's in-memory test database, so the tests that watch
a connection close run on PostgreSQL."""
import asyncio
import threading
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection, connections

from feed.hub import HUB
from parley_site.database_limit import MAX_DATABASE_REQUESTS, using_database


def free_room():
    """How many threads of their own can enter the limit within a second."""
    release, taken = threading.Event(), []

    def take():
        with using_database():
            taken.append(True)
            release.wait(5)

    takers = [threading.Thread(target=take) for _ in range(MAX_DATABASE_REQUESTS)]
    for taker in takers:
        taker.start()
    deadline = time.monotonic() + 1
    while len(taken) < MAX_DATABASE_REQUESTS and time.monotonic() < deadline:
        time.sleep(0.01)
    free = len(taken)
    release.set()
    for taker in takers:
        taker.join(5)
    return free


def in_a_request(call):
    """Runs call() on a thread of its own holding a turn, as a request does; returns its thread."""
    def request():
        with using_database():
            call()

    caller = threading.Thread(target=request)
    caller.start()
    return caller


def while_held(agent, check):
    """check()'s answer, asked in a thread of its own while `agent`'s inbox call waits (on the event loop,
    as under the ASGI server), and the call's response once its wait is over."""
    async def scenario():
        others = HUB.followers  # what earlier tests may still hold
        call = asyncio.ensure_future(agent.client.client.get("/api/v1/inbox", {"wait": 2},
                                                             headers=agent.client.defaults))
        while HUB.followers == others and not call.done():
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)  # subscribed before its first read: let that read end too
        seen = await sync_to_async(check, thread_sensitive=False)()
        return seen, await call
    return async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)  # a woken call re-reads on a thread of the feed's own
def test_a_held_call_gives_back_its_place_in_the_limit_while_it_waits(as_bob):
    free, response = while_held(as_bob, free_room)
    assert free == MAX_DATABASE_REQUESTS
    assert (response.status_code, response.json()["items"]) == (200, [])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # outside a test's transaction, as in production
def test_a_held_call_holds_no_connection_while_it_waits(as_bob):
    request_thread = connections["default"]  # the request's sync part runs on this thread here
    held_open, response = while_held(as_bob, lambda: request_thread.connection is not None)
    assert held_open is False
    assert response.status_code == 200


def test_calls_beyond_the_limit_wait_for_a_place(db):
    release, entered = threading.Event(), []

    def hold():
        entered.append(True)
        release.wait(5)

    holders = [in_a_request(hold) for _ in range(MAX_DATABASE_REQUESTS)]
    deadline = time.monotonic() + 5
    while len(entered) < MAX_DATABASE_REQUESTS and time.monotonic() < deadline:
        time.sleep(0.01)
    late = in_a_request(lambda: entered.append("late"))
    time.sleep(0.3)
    assert entered == [True] * MAX_DATABASE_REQUESTS
    release.set()
    late.join(5)
    assert entered[-1] == "late"
    for holder in holders:
        holder.join(5)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # outside a test's transaction, as in production
def test_a_request_gives_its_connection_back_once_its_response_is_built(as_bob):
    assert as_bob.get("/api/v1/threads").status_code == 200
    assert connection.connection is None


@pytest.mark.django_db(transaction=True)
def test_a_persistent_connection_outlives_the_request(as_bob, monkeypatch):
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    connection.close()  # the fixtures' connection was opened before; the request's opens under the setting
    assert as_bob.get("/api/v1/threads").status_code == 200
    assert connection.connection is not None
