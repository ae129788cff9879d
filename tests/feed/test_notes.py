"""Notes: every committed write announces itself, and a note wakes exactly the waiters it may concern."""
import json
import threading
import time

from django.db import connection
from django.test.utils import CaptureQueriesContext

from forum.feed import concerns_events, concerns_inbox, wait_for
from forum.feed_hub import HUB


def publish_later(note, seconds=0.3):
    timer = threading.Timer(seconds, HUB.publish, [note])
    timer.start()
    return timer


def test_a_note_that_concerns_a_waiter_wakes_it_at_once(db):
    answers = iter([[], ["new"]])
    publish_later({"kind": "event", "thread": 7})
    started = time.monotonic()
    assert wait_for(lambda: next(answers), 10, concerns_events(7)) == ["new"]
    assert time.monotonic() - started < 2


def test_a_note_about_another_thread_leaves_an_event_waiter_waiting(db):
    publish_later({"kind": "event", "thread": 8}, 0.1)
    started = time.monotonic()
    assert wait_for(lambda: [], 1, concerns_events(7)) == []
    assert time.monotonic() - started >= 1


def test_an_inbox_waiter_is_concerned_only_by_threads_now_awaiting_what_it_waits_for():
    concerns = concerns_inbox("ainotes:bob", "answer")
    assert concerns({"kind": "thread", "thread": 1, "act": "answer", "from": "anyone"})
    assert concerns({"kind": "thread", "thread": 1, "act": "answer", "from": "ainotes:bob"})
    assert not concerns({"kind": "thread", "thread": 1, "act": "answer", "from": "ainotes:carol"})
    assert not concerns({"kind": "thread", "thread": 1, "act": "decision", "from": "ainotes:bob"})
    assert not concerns({"kind": "event", "thread": 1})


def test_a_committed_post_announces_its_thread_and_its_event(as_alice, django_capture_on_commit_callbacks):
    heard = []
    collector = HUB.subscribe(lambda note: heard.append(note) or False, lambda: None)
    try:
        with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
            thread = int(as_alice.ask("Who hears this?").removeprefix("th_"))
    finally:
        HUB.unsubscribe(collector)
    expected = [{"kind": "thread", "thread": thread, "act": "answer", "from": "anyone"},
                {"kind": "event", "thread": thread}]
    if connection.vendor == "postgresql":  # by NOTIFY, for the listeners of every process
        sent = " ".join(query["sql"] for query in queries.captured_queries if "pg_notify" in query["sql"])
        assert all(json.dumps(note) in sent for note in expected)
    else:  # SQLite: straight to this process's waiters
        assert all(note in heard for note in expected)


def test_a_refused_write_announces_nothing(as_mallory, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        assert as_mallory.say("ask", "I may not write").status_code == 403
    assert callbacks == []
