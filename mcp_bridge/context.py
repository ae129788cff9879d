"""What every MCP handler needs from the door it came through: who the caller is (`CALLER`), and how its
sync code runs (`in_request_thread`), as a Django view's would."""
import asyncio
import contextvars

from asgiref.sync import sync_to_async

from parley_site.database_limit import using_database
from parley_site.statement_timeout import bounded

# () -> the caller's forum.actors.Actor, or raises token_invalid: the bearer header of the HTTP request, or
# the stdio command's PARLEY_TOKEN. Asked afresh by each call, so a revoked token stops working at once.
CALLER = contextvars.ContextVar("parley_mcp_caller")
# The pool a door runs each MCP call's sync code on (the ASGI application and stdio: the request threads
# of parley_site.sync_threads, which keep their connections as Django's requests on them do), or None where
# the request has a thread of its own already (the Django view, under WSGI), to which the calls go back.
REQUEST_THREADS = contextvars.ContextVar("parley_mcp_request_threads", default=None)


def caller():
    return CALLER.get()()


def in_turn(function, *args):
    """What Django does around a view, for one MCP call: it counts as one of the process's requests using
    the database (parley_site.database_limit), which at its end gives the connection back, or keeps it and
    arms its health check before the next use, and runs under the statement timeout."""
    with using_database(), bounded():
        return function(*args)


async def in_request_thread(function, *args):
    """function(*args) on a thread of the door's pool (`REQUEST_THREADS`), with the request's context, or
    where the door's request has a thread of its own (the Django view), back on that thread. Never, as
    `sync_to_async(thread_sensitive=True)` alone would have it outside Django's request handler, every MCP
    call of the process on one and the same thread."""
    pool = REQUEST_THREADS.get()
    if pool is None:
        return await sync_to_async(in_turn, thread_sensitive=True)(function, *args)
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(pool, context.run, in_turn, function, *args)
