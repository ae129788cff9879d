"""The statement timeout (parley_site.statement_timeout): a request's query that runs past it is cancelled
and the request refused `503 unavailable`, nothing stored; it is set per transaction, in the message of the transaction's first statement.
PostgreSQL only: SQLite has no such setting."""
import threading

import pytest
from django.db import connection, connections, transaction
from psycopg.pq import TransactionStatus

from forum import selectors
from forum.models import Message
from parley_site.statement_timeout import bounded

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]  # outside a test's transaction


@pytest.fixture(autouse=True)
def short_timeout(settings):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    settings.PARLEY_STATEMENT_TIMEOUT_MS = 300


def refusal(response):
    return response.status_code, response.json()["error"]["reason"], response.json()["error"]["message"]


def test_a_read_that_runs_past_the_timeout_is_refused_unavailable(as_bob, monkeypatch):
    def slow_list(actor, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(2)")
        return []
    monkeypatch.setattr(selectors, "thread_list", slow_list)
    status, reason, message = refusal(as_bob.get("/api/v1/threads"))
    assert (status, reason) == (503, "unavailable")
    assert "statement timeout" in message


def test_a_write_stuck_behind_a_lock_past_the_timeout_is_refused_and_stores_nothing(as_alice, as_bob):
    thread = as_alice.ask("Who holds the lock?")
    locked, release = threading.Event(), threading.Event()

    def hold_the_thread_row():
        with transaction.atomic():
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT id FROM forum_thread WHERE id = %s FOR UPDATE", [int(thread[3:])])
            locked.set()
            release.wait(10)
        connections["default"].close()
    holder = threading.Thread(target=hold_the_thread_row)
    holder.start()
    try:
        assert locked.wait(5)
        before = Message.objects.count()
        status, reason, _ = refusal(as_bob.say("answer", "Me, eventually", thread=thread))
    finally:
        release.set()
        holder.join(10)
    assert (status, reason) == (503, "unavailable")
    assert Message.objects.count() == before


def show_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


def session_timeout():
    """The session's own setting, asked past Django's cursor (and so past the timeout's wrapper)."""
    with connection.connection.cursor() as cursor:
        return cursor.execute("SHOW statement_timeout").fetchone()[0]


def test_the_timeout_is_set_per_transaction_and_ends_with_it():
    """SET LOCAL, not SET: behind a pooler in transaction mode a session setting would stay with whichever
    server connection the pooler lends next."""
    with bounded():
        with transaction.atomic():
            inside = show_timeout()
        after = session_timeout()
    assert (inside, after) == ("300ms", "0")


def test_a_read_outside_a_transaction_has_the_timeout_and_no_transaction_of_its_own_to_pay():
    """Issue 26: the SET LOCAL rides in the statement's own message, one round trip, no BEGIN or COMMIT."""
    sent = []

    def record(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)
    with bounded(), connection.execute_wrapper(record):
        timeout = show_timeout()
        status = connection.connection.info.transaction_status
    assert timeout == "300ms" and session_timeout() == "0"
    assert sent == ["SET LOCAL statement_timeout = 300; SHOW statement_timeout"]
    assert status == TransactionStatus.IDLE  # nothing left open to COMMIT


def test_work_outside_requests_has_no_timeout():
    with transaction.atomic():  # a migration or a management command
        assert show_timeout() == "0"
