"""The database limit: at most MAX_DATABASE_REQUESTS requests of a process use the database at the same
time.

Requests beyond the limit wait in their thread for another to finish, holding no connection, so a burst
(agents arriving, held calls answering and coming straight back) queues instead of exhausting
PostgreSQL's connections. A request enters the limit right around its view, in the view's own thread, and
leaves it as soon as its response is built: before a held call waits (forum.held), which therefore counts
against no limit.

Under the ASGI application the threads that run views are a pool of their own (parley_site.sync_threads),
no more of them than the limit, so a connection a thread keeps between requests (CONN_MAX_AGE) is bounded
too. Because the request's start and end signals may run on another thread of that pool than its view,
leaving the limit does what they do for Django, in the view's thread: it drops an obsolete or broken
connection, and arms the check of a kept one before its next use (CONN_HEALTH_CHECKS)."""
import threading
from contextlib import contextmanager

from django.db import connections

from parley_site.statement_timeout import bounded

MAX_DATABASE_REQUESTS = 8
_semaphore = threading.BoundedSemaphore(MAX_DATABASE_REQUESTS)
_this_thread = threading.local()


@contextmanager
def using_database():
    """Count as one of the process's requests using the database, waiting while MAX_DATABASE_REQUESTS
    others do (once per thread: nested uses count once). When it ends, the thread's connection goes back,
    as Django would at the end of the request, unless it is a persistent one."""
    if getattr(_this_thread, "inside", False):
        yield
        return
    _semaphore.acquire()
    _this_thread.inside = True
    try:
        yield
    finally:
        try:
            tidy_connection()
        finally:
            _this_thread.inside = False
            _semaphore.release()


def tidy_connection():
    """What Django does at the end of a request, for this thread's connections (the primary's and a
    replica's, parley_site.replicas): close each, or keep it while it is usable and young, and check it
    again before its next use (CONN_HEALTH_CHECKS). A transaction around the request (a test's) is not ours
    to end."""
    for database in connections.all(initialized_only=True):
        if database.in_atomic_block:
            continue
        if database.settings_dict["CONN_MAX_AGE"] == 0:
            database.close()
        else:
            database.close_if_unusable_or_obsolete()


class DatabaseLimitMiddleware:
    """Innermost and sync, so that it runs in the request's own thread, right around the view: the database
    limit, and the statement timeout on the view's transactions (parley_site.statement_timeout)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with using_database(), bounded():
            return self.get_response(request)
