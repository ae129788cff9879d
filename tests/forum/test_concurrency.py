"""§9 on PostgreSQL: concurrent acts on one thread, each from its own thread and database connection, never
leave two states, a lost message, or a message accepted after a confirmed close."""
import json
import threading

import pytest
from django.db import connection, connections

from forum.models import IdempotencyRecord, Message, StateEvent, Thread
from tests.conftest import Agent

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
