"""A statement timeout on the database work of requests: a query that runs past it is cancelled and the
request refused `503 unavailable` (§13), instead of holding a connection and its place in the database limit while others wait.

It is set per transaction (`SET LOCAL`), the first thing each transaction does, so that a pooler in
transaction mode (PgBouncer) keeps working: a session setting would stick to whichever server connection
the pooler lent. Reads therefore run in a transaction too (forum.dispatch.call). It applies only inside
`bounded()`, the requests' and the feed's database work, never to migrations or management commands. SQLite has no
such setting; the demo does without."""
from contextlib import contextmanager, nullcontext

from django.conf import settings
from django.db import connection, transaction
from psycopg.pq import TransactionStatus


def set_timeout_first(execute, sql, params, many, context):
    database = context["connection"]
    if not database.get_autocommit() and database.connection.info.transaction_status == TransactionStatus.IDLE:
        with database.connection.cursor() as cursor:  # psycopg's own cursor: this wrapper is not re-entered
            cursor.execute(f"SET LOCAL statement_timeout = {int(settings.PARLEY_STATEMENT_TIMEOUT_MS)}")
    return execute(sql, params, many, context)


@contextmanager
def bounded():
    """Every transaction begun inside this block, on this thread's connection, has the timeout."""
    if connection.vendor != "postgresql" or not settings.PARLEY_STATEMENT_TIMEOUT_MS:
        yield
        return
    with connection.execute_wrapper(set_timeout_first):
        yield


def read_transaction():
    """A transaction for a read, where the timeout needs one: on PostgreSQL. SQLite has no timeout, and
    there a transaction (IMMEDIATE, parley_site.settings) would make a read take the write lock."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return nullcontext()
    return transaction.atomic()


def is_timeout(exc):
    """Whether a database error is the statement timeout's cancellation (SQLSTATE 57014)."""
    return getattr(exc.__cause__, "sqlstate", None) == "57014"

