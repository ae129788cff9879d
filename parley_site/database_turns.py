"""Database turns: at most TURNS requests of a process use the database at the same time.

Requests beyond the turns wait for one in their thread, holding no connection, so a burst (agents
arriving, held calls answering and coming straight back) queues instead of exhausting PostgreSQL's
connections. A request takes a turn right around its view, in the view's own thread, and gives it back as
soon as its response is built: before a held call waits (forum.held), which therefore holds no turn.

Under the ASGI application the threads that run views are a pool of their own (parley_site.sync_threads),
no more of them than turns, so a connection a thread keeps between requests (CONN_MAX_AGE) is bounded too.
Because the request's start and end signals may run on another thread of that pool than its view, the
turn itself does what they do for Django, in the view's thread: at its end it drops an obsolete or broken
connection, and arms the check of a kept one before its next use (CONN_HEALTH_CHECKS)."""
import threading
from contextlib import contextmanager

from django.db import connection

from parley_site.statement_timeout import bounded

TURNS = 8
_turns = threading.BoundedSemaphore(TURNS)
_held = threading.local()


@contextmanager
def database_turn():
    """Hold one of the process's turns (once per thread: nested uses share it). When it ends, the thread's
    connection goes back, as Django would at the end of the request, unless it is a persistent one."""
    if getattr(_held, "turn", False):
        yield
        return
    _turns.acquire()
    _held.turn = True
    try:
        yield
    finally:
        try:
            tidy_connection()
        finally:
            _held.turn = False
            _turns.release()


def tidy_connection():
    """What Django does at the end of a request, for this thread's connection: close it, or keep it while
    it is usable and young, and check it again before its next use (CONN_HEALTH_CHECKS). A transaction
    around the request (a test's) is not ours to end."""
    if connection.in_atomic_block:
        return
    if connection.settings_dict["CONN_MAX_AGE"] == 0:
        connection.close()
    else:
        connection.close_if_unusable_or_obsolete()


class DatabaseTurnMiddleware:
    """Innermost and sync, so that it runs in the request's own thread, right around the view: a turn, and
    the statement timeout on the view's transactions (parley_site.statement_timeout)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with database_turn(), bounded():
            return self.get_response(request)
