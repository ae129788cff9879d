"""§9 on PostgreSQL: concurrent acts on one thread, each from its own thread and database connection, never
leave two states, a lost message, or a message accepted after a confirmed close."""
import json
import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from forum.idempotency import lock_key
from forum.models import IdempotencyRecord, Message, StateEvent, Thread
from tests.conftest import Agent
from tests.forum.expect import nothing_stored, refused

pytestmark = pytest.mark.postgres
ROUNDS = 12


@pytest.fixture
def on_postgresql(transactional_db, low_limits):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite lets one writer in at a time anyway")
    low_limits(writes_per_minute=1000)


def race(jobs):
    """Run each job (a list of request callables) in its own thread, all starting together. Returns every
    (job index, response status, body)."""
    barrier, results, lock = threading.Barrier(len(jobs)), [], threading.Lock()

    def work(index, requests):
        try:
            barrier.wait()
            for send in requests:
                if send is None:
                    break
                response = send()
                with lock:
                    results.append((index, response.status_code, response.json()))
                if response.status_code == 201 and getattr(send, "until_accepted", False):
                    break
        finally:
            connections.close_all()  # this thread's own connection

    threads = [threading.Thread(target=work, args=(index, job)) for index, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a racing request hung"
    return results


def until_accepted(send):
    send.until_accepted = True
    return send


def test_racing_acts_on_one_thread_leave_one_consistent_history(on_postgresql, make_token):
    alice, bob, carol, dave, mod = (Agent(make_token(handle, rights)) for handle, rights in [
        ("alice", ("read", "write")), ("bob", ("read", "write")), ("carol", ("read", "write")),
        ("dave", ("read", "write")), ("mod", ("read", "write", "lock"))])
    thread = alice.ask("Race?")
    say = lambda agent, kind: lambda: agent.say(kind, f"{kind} in the race", thread=thread)  # noqa: E731
    confirm = lambda: mod.post(f"/api/v1/threads/{thread}/confirm")  # noqa: E731
    jobs = [
        [say(bob, "answer")] * ROUNDS,
        [say(carol, "answer")] * ROUNDS,
        [say(dave, "note")] * ROUNDS,
        [say(alice, kind) for kind in ("decide", "close")] * (ROUNDS // 2),
        [confirm] * ROUNDS,
        [until_accepted(say(mod, "close"))] * ROUNDS * 3,
    ]
    results = race(jobs)

    assert all(status < 500 for _, status, _ in results), [r for r in results if r[1] >= 500]
    refusals = {body["error"]["reason"] for _, status, body in results if status >= 400}
    assert refusals <= {"thread_locked", "invalid_transition", "nothing_to_confirm", "loop_guard"}, refusals

    final = Thread.objects.get(pk=int(thread.removeprefix("th_")))
    assert final.is_locked and final.state == "closed", "the moderator's close never landed"
    events = list(StateEvent.objects.filter(thread=final).order_by("id"))
    for before, after in zip(events, events[1:]):
        assert after.from_state == before.to_state, [(e.label, e.from_state, e.to_state) for e in events]
    assert events[-1].to_state == "closed" and events[-1].confirmed_at is not None

    acknowledged = [body["message"]["id"] for _, status, body in results if status == 201]
    stored = [f"msg_{pk}" for pk in Message.objects.filter(thread=final).order_by("id").values_list("pk", flat=True)]
    assert len(acknowledged) == len(set(acknowledged))
    assert sorted(stored[1:]) == sorted(acknowledged), "an acknowledged message is missing, or an extra one stored"
    assert final.message_count == len(stored)
    locked_at = events[-1].confirmed_at
    assert all(message.created_at <= locked_at for message in Message.objects.filter(thread=final))


def test_racing_retries_with_one_idempotency_key_store_one_message(on_postgresql, make_token):
    bob = make_token("bob", ("read", "write"))
    agents = [Agent(bob) for _ in range(6)]

    def retry(agent, envelope):
        return lambda: agent.post(body=envelope, HTTP_IDEMPOTENCY_KEY="same-key")

    results = race([[retry(agent, {"kind": "ask", "body": "Only once?"})] for agent in agents])
    assert {status for _, status, _ in results} == {201}
    # Equal as JSON: PostgreSQL's jsonb keeps a replayed answer's members in its own order.
    assert len({json.dumps(body, sort_keys=True) for _, _, body in results}) == 1
    assert (Thread.objects.count(), Message.objects.count(), IdempotencyRecord.objects.count()) == (1, 1, 1)

    carol = make_token("carol", ("read", "write"))  # reuses bob's key: keys are scoped per token
    note = {"kind": "note", "body": "only once too", "thread": results[0][2]["thread"]["id"]}
    results = race([[retry(Agent(carol), note)] for _ in range(6)])
    assert {status for _, status, _ in results} == {201}
    assert len({body["message"]["id"] for _, _, body in results}) == 1
    assert Message.objects.count() == 2


def waiting_backends():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                       "AND datname = current_database()")
        return cursor.fetchone()[0]


def wait_until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the racing writes never reached the expected point"
        time.sleep(0.02)


class Hold(threading.Thread):
    """Runs `inside()` in a transaction of its own, on a thread of its own, and keeps that transaction open
    until released."""

    def __init__(self, identity, key):
        super().__init__()
        self.identity, self.key = identity, key
        self.ready, self.release = threading.Event(), threading.Event()

    def inside(self):
        """Keeps an idempotency row of `identity` uncommitted: a keyed write of that identity and key blocks
        right before its commit, after it has taken its place in every list."""
        IdempotencyRecord.objects.create(identity=self.identity, key=self.key, fingerprint="held", status=0,
                                         response={}, created_at=timezone.now())

    def run(self):
        try:
            with transaction.atomic():
                self.inside()
                self.ready.set()
                self.release.wait(30)
                transaction.set_rollback(True)
        finally:
            connections.close_all()


def in_thread(send, results):
    def work():
        try:
            results.append(send())
        finally:
            connections.close_all()
    worker = threading.Thread(target=work)
    worker.start()
    return worker


def answer_held_before_its_commit(agent, thread, results):
    """`agent`'s keyed answer to `thread`, running in a thread of its own and stopped right before its
    commit, after it has taken its cursor positions, until the returned Hold is released."""
    hold = Hold(agent.identity, "slow")
    hold.start()
    assert hold.ready.wait(10)
    answer = in_thread(lambda: agent.post(body={"kind": "answer", "body": "Slow", "thread": thread},
                                          HTTP_IDEMPOTENCY_KEY="slow"), results)
    wait_until(lambda: waiting_backends() >= 1)
    return hold, answer


@pytest.mark.parametrize("path,params", [("/api/v1/events", {}), ("/api/v1/inbox", {"awaiting": "decision"})])
def test_a_poller_misses_nothing_when_writes_commit_out_of_order(path, params, on_postgresql, make_token):
    """§11: a cursor continues after the last item; a write that took an earlier place but committed later
    must still come after that cursor, never behind it. alice polls; bob's answer is slow, carol's fast."""
    alice, bob, carol = (Agent(make_token(handle)) for handle in ("alice", "bob", "carol"))
    first, second = alice.ask("First?"), alice.ask("Second?")
    cursor = alice.get(path, **params).json()["cursor"]
    results = []
    hold, slow = answer_held_before_its_commit(bob, first, results)
    fast = in_thread(lambda: carol.say("answer", "Fast", thread=second), results)
    time.sleep(0.3)  # the fast write commits now, unless it has to wait for the slow one
    seen = alice.get(path, cursor=cursor, **params).json()
    hold.release.set()
    for worker in (slow, fast, hold):
        worker.join(30)
    assert sorted(response.status_code for response in results) == [201, 201]
    later = alice.get(path, cursor=seen["cursor"], **params).json()
    threads = [item.get("thread", item["id"]) for item in seen["items"] + later["items"]]
    assert sorted(threads) == sorted([first, second]), "a poller following the cursor missed a write"


def test_no_write_to_one_thread_waits_for_a_write_to_another(on_postgresql, make_token):
    """§19: cursors stay commit-ordered without a global lock (forum.commit_order). While bob's answer to
    one thread is held open before its commit, carol's note and her answer to another thread, which takes
    an inbox position and an event id, both go through."""
    alice, bob, carol = (Agent(make_token(handle)) for handle in ("alice", "bob", "carol"))
    held, other = alice.ask("Held?"), alice.ask("Other?")
    results = []
    hold, slow = answer_held_before_its_commit(bob, held, results)
    note = in_thread(lambda: carol.say("note", "Just a remark.", thread=other), results)
    answer = in_thread(lambda: carol.say("answer", "An answer.", thread=other), results)
    for worker in (note, answer):
        worker.join(10)
    done_while_held = sorted(response.status_code for response in results)
    hold.release.set()
    for worker in (slow, hold):
        worker.join(30)
    assert done_while_held == [201, 201], "a write to another thread waited for the held one"
    assert sorted(response.status_code for response in results) == [201, 201, 201]


def test_eight_identical_keyed_closes_at_once_store_one_message_and_all_get_its_answer(on_postgresql, make_token):
    """§4.1: a retry that arrives while the first request with its key is served waits for it, then gets its
    answer replayed. Judged afresh, seven of these closes met the thread the first had closed: 409."""
    alice, bob = Agent(make_token("alice")), Agent(make_token("bob"))
    thread = alice.ask("Close me once?")
    assert bob.say("answer", "Yes.", thread=thread).status_code == 201
    retries = [Agent(alice.token) for _ in range(8)]
    close = lambda agent: lambda: agent.post(  # noqa: E731
        body={"kind": "close", "body": "Settled.", "thread": thread}, HTTP_IDEMPOTENCY_KEY="close-once")

    results = race([[close(agent)] for agent in retries])

    assert [status for _, status, _ in results] == [201] * 8, results
    assert len({json.dumps(body, sort_keys=True) for _, _, body in results}) == 1
    stored = Message.objects.filter(thread_id=int(thread.removeprefix("th_")), kind="close")
    assert (stored.count(), IdempotencyRecord.objects.filter(key="close-once").count()) == (1, 1)


class KeyHeld(Hold):
    """Serves `key` for `identity` as a first request would, until released."""

    def inside(self):
        lock_key(self.identity, self.key)


def test_a_retry_waits_for_the_first_request_no_longer_than_a_request_may_run(on_postgresql, make_token,
                                                                             monkeypatch):
    monkeypatch.setattr("forum.idempotency.WAIT_MAX", "300ms")  # 60 s in production: a request's limit
    bob = Agent(make_token("bob"))
    thread = bob.ask("Anyone?")
    held = KeyHeld(bob.identity, "slow-first")
    held.start()
    assert held.ready.wait(10)
    try:
        with nothing_stored():
            started = time.monotonic()
            response = bob.post(body={"kind": "note", "body": "retry", "thread": thread},
                                HTTP_IDEMPOTENCY_KEY="slow-first")
            waited = time.monotonic() - started
            refused(response, 503, "unavailable")
    finally:
        held.release.set()
        held.join(30)
    assert 0.3 <= waited < 5
