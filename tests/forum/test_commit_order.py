"""§19: cursors are commit-ordered without a global lock (forum.commit_order). A row appears to pollers once
every transaction of the database that began before it has ended; writes never wait for each other to
keep that order; cursors issued before the upgrade keep working."""
import base64
import threading
import time

import pytest
from django.db import connection

from forum import cursors
from forum.commit_order import Position
from forum.models import Thread
from tests.conftest import Agent
from tests.forum.test_concurrency import Hold, on_postgresql, race  # noqa: F401  (a fixture)


def bare_cursor(scope, position):
    """A cursor as Parley wrote it before commit order: the bare position."""
    return base64.urlsafe_b64encode(f"{scope}:{position}".encode()).decode().rstrip("=")


def written_before_the_upgrade():
    """Every row now there as the migration left the rows it found: written by transaction 0."""
    if connection.vendor != "postgresql":
        return  # SQLite keeps 0 everywhere
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # past the triggers that keep xact
        cursor.execute("UPDATE forum_thread SET xact = 0, awaiting_xact = 0")
        cursor.execute("UPDATE forum_stateevent SET xact = 0")
        cursor.execute("SET LOCAL session_replication_role = origin")


def ids(page):
    return [item.get("id") for item in page["items"]]


@pytest.mark.parametrize("path,scope", [("/api/v1/threads", "threads"), ("/api/v1/inbox", "inbox")])
def test_a_cursor_issued_before_the_upgrade_continues_where_it_stopped(path, scope, make_token):
    alice, bob = Agent(make_token("alice")), Agent(make_token("bob"))
    old = [alice.ask(f"Old {n}?") for n in range(3)]
    written_before_the_upgrade()
    first = Thread.objects.get(pk=int(old[0].removeprefix("th_")))
    position = first.pk if scope == "threads" else first.awaiting_seq
    page = bob.get(path, cursor=bare_cursor(scope, position)).json()
    assert ids(page) == old[1:]
    new = alice.ask("New?")
    later = bob.get(path, cursor=page["cursor"]).json()
    assert ids(later) == [new], "a row written after the upgrade is missed, or an old one repeated"


def test_a_cursor_round_trips_its_transaction_and_position():
    assert cursors.decode("events", cursors.encode("events", Position(123456, 7))) == Position(123456, 7)
    assert cursors.encode("events", Position(0, 7)) == bare_cursor("events", 7)
    assert cursors.decode("events", bare_cursor("events", 7)) == Position(0, 7)


def events_after(agent, cursor):
    return agent.get("/api/v1/events", **({"cursor": cursor} if cursor else {})).json()


def test_a_write_held_back_by_an_older_transaction_appears_once_it_has_ended(on_postgresql, make_token):
    """An ask committed while an older transaction of the database is in flight sorts after it: pollers see
    it only once that transaction has ended, and then exactly once."""
    alice, carol = Agent(make_token("alice")), Agent(make_token("carol"))
    cursor = events_after(alice, None)["cursor"]
    hold = Hold(alice.identity, "older")  # an uncommitted row: a transaction of this database in flight
    hold.start()
    assert hold.ready.wait(10)
    try:
        asked = carol.ask("Committed while an older write is in flight?")
        while_held = events_after(alice, cursor)
    finally:
        hold.release.set()
        hold.join(30)
    assert while_held["items"] == [] and while_held["cursor"] == cursor
    after = events_after(alice, cursor)
    assert [item["thread"] for item in after["items"]] == [asked]
    assert events_after(alice, after["cursor"])["items"] == []


def advisory_lock_waits():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                       "AND wait_event = 'advisory' AND datname = current_database()")
        return cursor.fetchone()[0]


def test_concurrent_asks_and_marks_wait_on_no_advisory_lock(on_postgresql, make_token):
    """§19: state-changing writes of different threads do not wait for each other: sampled every 10 ms while
    eight lines ask and answer at once, no backend of the database waits on an advisory lock."""
    agents = [Agent(make_token(f"writer{n}")) for n in range(8)]
    threads = [agent.ask(f"Thread of writer {n}?") for n, agent in enumerate(agents)]
    samples, done = [], threading.Event()

    def sample():
        try:
            while not done.is_set():
                samples.append(advisory_lock_waits())
                time.sleep(0.01)
        finally:
            connection.close()

    sampler = threading.Thread(target=sample)
    sampler.start()
    def answer(agent, i, n):  # each time another line's thread: no self reply, no loop
        return lambda: agent.say("answer", f"Answer {n}", thread=threads[(i + 1 + n // 2) % len(threads)])

    def ask(agent, n):
        return lambda: agent.say("ask", f"Ask {n}?")

    jobs = [[answer(agent, i, n) if n % 2 else ask(agent, n) for n in range(12)] for i, agent in enumerate(agents)]
    try:
        results = race(jobs)
    finally:
        done.set()
        sampler.join(30)
    assert {status for _, status, _ in results} == {201}, [body for _, status, body in results if status != 201]
    assert len(samples) > 10 and max(samples) == 0, f"backends waited on an advisory lock: {max(samples)}"
