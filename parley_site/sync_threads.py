"""The sync parts of requests (middleware, views) run on one bounded pool of threads that every request of
the process shares, instead of on a thread of their own per request.

Django's ASGI handler gives each request a thread of its own for the whole time the request is open. A
held wait or an open event stream (§16) is open for long, so each would keep an idle thread: a thousand
listeners, a thousand threads. Here a request borrows a pool thread only while its sync code runs. Django
keeps nothing on a request's thread that must outlive one such call: under ASGI a connection is closed
when the view's response is built (parley_site.database_turns), not at the end of the request."""
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext

# Twice the database turns: requests that need no database (the health check, a refusal before any
# query) still find a thread while the turns are all taken.
SYNC_THREADS = 16
SYNC_WORK = ThreadPoolExecutor(max_workers=SYNC_THREADS, thread_name_prefix="parley-sync")


def on_shared_threads(app):
    async def application(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        # Django's own ThreadSensitiveContext, inside this one, then changes nothing.
        async with ThreadSensitiveContext(executor=SYNC_WORK):
            return await app(scope, receive, send)
    return application
