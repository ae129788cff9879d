"""The statement timeout (parley_site.statement_timeout): a request's query that runs past it is cancelled
and the request refused `503 unavailable`, nothing stored; it is set per transaction, in the message of the
transaction's first statement. PostgreSQL only: SQLite has no such setting."""
import threading

import pytest
from django.db import connection, connections, transaction
from psycopg.pq import TransactionStatus

from bench.cluster import PgBouncer, postgres_os_user
from bench.server import database_url
from forum import selectors
from forum.models import Message
from parley_site.statement_timeout import bounded
from tests.production.conftest import needed_binary
from tests.production.private_cluster import every_query_on

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


def test_behind_pgbouncer_in_transaction_mode_every_read_has_the_timeout_and_no_session_keeps_it(django_db_blocker):
    """The SET LOCAL and the read travel in one message, which PgBouncer hands to one server connection as one
    transaction; nothing stays on the server connections it lends next."""
    os_user = postgres_os_user()
    if os_user is None:
        pytest.skip("PgBouncer refuses to run as root, and there is no `postgres` user to run it as")
    direct = database_url(connection.settings_dict)
    with PgBouncer(direct, os_user, pool_size=2, binary=needed_binary("pgbouncer")) as bouncer, \
            django_db_blocker.unblock(), every_query_on(bouncer.url(direct)) as pooled:
        with bounded():
            seen = set()
            for _ in range(6):
                with pooled.cursor() as cursor:
                    cursor.execute("SHOW statement_timeout")
                    seen.add(cursor.fetchone()[0])
        with pooled.cursor() as cursor:  # outside bounded(): whatever server connection it gets
            cursor.execute("SHOW statement_timeout")
            after = cursor.fetchone()[0]
    assert (seen, after) == ({"300ms"}, "0")
