"""Database turns: at most TURNS requests of a process use the database at the same time.

Under ASGI every sync request runs on a thread of its own, so nothing bounded how many requests of a
process held a database connection at once. A burst (agents arriving, long-polls answering and coming
straight back) opened one per request in flight, each held until Django closed it after the response had
been sent, and PostgreSQL ran out of connections (docs/performance.md). Now a request takes a turn before
its view runs and gives it back, with its connection, as soon as its response is built; a long-poll gives
both back before it sleeps and takes a turn again only to re-read (forum.feed.wait_for), so a call that
times out answers without waiting for one. Requests beyond the turns wait for one in their thread,
holding no connection. Under gunicorn's threads (fewer than TURNS) a turn is always free."""
import threading
from contextlib import contextmanager

from django.db import connection

from parley_site.statement_timeout import bounded

TURNS = 8
_turns = threading.BoundedSemaphore(TURNS)
_held = threading.local()


def holds_turn():
    return getattr(_held, "turn", False)


@contextmanager
def database_turn():
    """Hold one of the process's turns (once per thread: nested uses share it). When it ends, the thread's
    connection goes back, as Django would at the end of the request: unless it is a persistent one
    (CONN_MAX_AGE), which Django checks before its next use."""
    if holds_turn():
        yield
        return
    _turns.acquire()
    _held.turn = True
    try:
        yield
    finally:
        if holds_turn():  # not given back meanwhile (give_turn_back)
            try:
                if connection.settings_dict["CONN_MAX_AGE"] == 0:
                    release_connection()
            finally:
                _give_back()


def release_connection():
    """Close the thread's connection, persistent or not: a call about to sleep must not hold one. A
    transaction around the call (a test's) is not ours to end."""
    if not connection.in_atomic_block:
        connection.close()


def give_turn_back():
    """For a call about to sleep inside its request: its connection, and its turn if it holds one, go back.
    It takes a turn again (database_turn) only when it reads."""
    release_connection()
    if holds_turn():
        _give_back()


def _give_back():
    _held.turn = False
    _turns.release()


class DatabaseTurnMiddleware:
    """Innermost and sync, so that it runs in the request's own thread, right around the view: a turn, and
    the statement timeout on the view's transactions (parley_site.statement_timeout)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with database_turn(), bounded():
            return self.get_response(request)
