"""A statement timeout on the database work of requests: a query that runs past it is cancelled and the
request refused `503 unavailable` (§13), instead of holding a connection and its place in the database limit while others wait.

It is set per transaction (`SET LOCAL`), so that a pooler in transaction mode (PgBouncer) keeps working: a
session setting would stick to whichever server connection the pooler lent. It costs no round trip of its
own: the `SET LOCAL` travels in the same message as the statement that begins the transaction, which the
simple query protocol runs as one transaction (psycopg's client-side binding cursor, Django's default,
sends it so). A read outside a transaction is a transaction of its own, statement by statement, each
carrying its `SET LOCAL`; so reads need no BEGIN and COMMIT (Parley v1 §11's lists read each statement's
own snapshot anyway, as READ COMMITTED would). It applies only inside `bounded()`, the requests' and the
feed's database work, never to migrations or management commands. SQLite has no such setting; the demo
does without."""
from contextlib import ExitStack, contextmanager

import psycopg
from django.conf import settings
from django.db import connections
from psycopg.pq import TransactionStatus


def set_timeout_first(execute, sql, params, many, context):
    database = context["connection"]
    if database.connection.info.transaction_status != TransactionStatus.IDLE:
        return execute(sql, params, many, context)  # within a transaction that has its timeout already
    timeout = f"SET LOCAL statement_timeout = {int(settings.PARLEY_STATEMENT_TIMEOUT_MS)}"
    cursor = context["cursor"].cursor
    if many or not isinstance(cursor, psycopg.ClientCursor):
        # Only one statement per message here: the timeout goes first on its own (in autocommit it would
        # end with its one-statement transaction, so only a transaction's first statement gets it).
        if not database.get_autocommit():
            with database.connection.cursor() as own:  # psycopg's own cursor: this wrapper is not re-entered
                own.execute(timeout)
        return execute(sql, params, many, context)
    result = execute(f"{timeout}; {sql}", params, many, context)
    cursor.nextset()  # past the SET's empty result, to the statement's own
    return result


@contextmanager
def bounded():
    """Every transaction begun inside this block, on this thread's connections (the primary's and the
    replicas'), has the timeout."""
    if connections["default"].vendor != "postgresql" or not settings.PARLEY_STATEMENT_TIMEOUT_MS:
        yield
        return
    with ExitStack() as stack:
        for alias in connections:
            if connections[alias].vendor == "postgresql":
                stack.enter_context(connections[alias].execute_wrapper(set_timeout_first))
        yield


def is_timeout(exc):
    """Whether a database error is the statement timeout's cancellation (SQLSTATE 57014)."""
    return getattr(exc.__cause__, "sqlstate", None) == "57014"
