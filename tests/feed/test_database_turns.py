"""Database turns (parley_site.database_turns): a process's requests hold at most TURNS connections at once,
a request gives its connection back once its response is built, and a long-poll holds neither turn nor
connection while it sleeps. Django never closes SQLite's in-memory test database, so the tests that watch
a connection close run on PostgreSQL."""
import threading
import time

import pytest
from django.db import connection, connections

from forum.feed import concerns_events, wait_for
from forum.feed_hub import HUB
from parley_site.database_turns import TURNS, database_turn


def free_turns():
    """How many turns threads of their own can take within a second."""
    release, taken = threading.Event(), []

    def take():
        with database_turn():
            taken.append(True)
            release.wait(5)

    takers = [threading.Thread(target=take) for _ in range(TURNS)]
    for taker in takers:
        taker.start()
    deadline = time.monotonic() + 1
    while len(taken) < TURNS and time.monotonic() < deadline:
        time.sleep(0.01)
    free = len(taken)
    release.set()
    for taker in takers:
        taker.join(5)
    return free


def in_a_request(call):
    """Runs call() on a thread of its own holding a turn, as a request does; returns its thread."""
    def request():
        with database_turn():
            call()

    caller = threading.Thread(target=request)
    caller.start()
    return caller


def sleeping_long_poll():
    """A long-poll in a request of its own, past its first (empty) read and asleep. Returns the thread's
    database connection, a wake(), and the call's answers."""
    reads, asleep, arrived, answered = [], threading.Event(), threading.Event(), []

    def read():
        connections["default"].ensure_connection()
        reads.append(connections["default"])
        asleep.set()
        return ["new"] if arrived.is_set() else []  # the hub may wake it before (when it starts listening)

    caller = in_a_request(lambda: answered.append(wait_for(read, 10, concerns_events(7))))
    assert asleep.wait(5)
    time.sleep(0.5)  # past the first read and any wake-up of the hub's start, into the sleep

    def wake():
        arrived.set()
        HUB.publish({"kind": "event", "thread": 7})
        caller.join(5)
    return reads[0], wake, answered


def test_a_waiting_long_poll_gives_back_its_turn_while_it_sleeps(db):
    _, wake, answered = sleeping_long_poll()
    assert free_turns() == TURNS
    wake()
    assert answered == [["new"]]


@pytest.mark.postgres
def test_a_waiting_long_poll_holds_no_connection_while_it_sleeps(db):
    database, wake, answered = sleeping_long_poll()
    assert database.connection is None
    wake()
    assert answered == [["new"]]


def test_calls_beyond_the_turns_wait_for_one(db):
    release, entered = threading.Event(), []

    def hold():
        entered.append(True)
        release.wait(5)

    holders = [in_a_request(hold) for _ in range(TURNS)]
    deadline = time.monotonic() + 5
    while len(entered) < TURNS and time.monotonic() < deadline:
        time.sleep(0.01)
    late = in_a_request(lambda: entered.append("late"))
    time.sleep(0.3)
    assert entered == [True] * TURNS
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
    assert as_bob.get("/api/v1/threads").status_code == 200
    assert connection.connection is not None
