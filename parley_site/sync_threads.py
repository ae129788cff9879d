"""The sync parts of requests (middleware, views) run on one bounded pool of threads that every request of
the process shares, instead of on a thread of their own per request.

Django's ASGI handler gives each request a thread of its own for the whole time the request is open. A
held wait or an open event stream (§16) is open for long, so each would keep an idle thread: a thousand
listeners, a thousand threads. Here a request borrows a pool thread only while its sync code runs. The
threads live on, so each may keep its database connection between requests (CONN_MAX_AGE, set by
gunicorn.conf.py), as a threaded WSGI worker's do: connecting anew for every request cost a read more
than it spent in the database. A request's connection is tidied in its view's thread
(parley_site.database_limit), whichever thread its start and end signals run on."""
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext

from parley_site.database_limit import MAX_DATABASE_REQUESTS

# As many as the database limit: every thread may use the database, and keeps at most one connection. The
# health check runs elsewhere (parley_site.health), so it answers while they are all busy.
SYNC_THREADS = MAX_DATABASE_REQUESTS
SYNC_WORK = ThreadPoolExecutor(max_workers=SYNC_THREADS, thread_name_prefix="parley-sync")


def on_shared_threads(app):
    async def application(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        # Django's own ThreadSensitiveContext, inside this one, then changes nothing.
        async with ThreadSensitiveContext(executor=SYNC_WORK):
            return await app(scope, receive, send)
    return application
