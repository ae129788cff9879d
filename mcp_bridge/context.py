"""What every MCP handler needs from the door it came through: who the caller is (`CALLER`), and how its
sync code runs (`in_request_thread`), as a Django view's would."""
import contextvars

from asgiref.sync import ThreadSensitiveContext, sync_to_async

from parley_site.database_turns import database_turn
from parley_site.statement_timeout import bounded

# () -> the caller's forum.actors.Actor, or raises token_invalid: the bearer header of the HTTP request, or
# the stdio command's PARLEY_TOKEN. Asked afresh by each call, so a revoked token stops working at once.
CALLER = contextvars.ContextVar("parley_mcp_caller")
# The pool a door runs each MCP request's sync code on (the ASGI application and stdio: the request
# threads of parley_site.sync_threads), or None where the request has a thread of its own already (the
# Django view, under WSGI), to which thread-sensitive calls go back.
REQUEST_THREADS = contextvars.ContextVar("parley_mcp_request_threads", default=None)


def caller():
    return CALLER.get()()


def in_turn(function, *args):
    """What Django does around a view, for one MCP call: it holds one of the process's database turns, which
    at its end gives the connection back, or keeps it and arms its health check before the next use
    (parley_site.database_turns), and runs under the statement timeout."""
    with database_turn(), bounded():
        return function(*args)


async def in_request_thread(function, *args):
    """function(*args) on the thread of the request that asked. Thread-sensitive, as Django runs a sync
    view, but never one thread for the whole process (what `thread_sensitive=True` alone gives outside
    Django's request handler): each MCP request has a context of its own (`per_request_threads`)."""
    return await sync_to_async(in_turn, thread_sensitive=True)(function, *args)


async def per_request_threads(ctx, call_next):
    """A server middleware: each MCP request (a message, on stdio) runs its sync code in a thread context
    of its own on the door's pool, as parley_site.sync_threads gives every Django request."""
    pool = REQUEST_THREADS.get()
    if pool is None:
        return await call_next(ctx)
    async with ThreadSensitiveContext(executor=pool):
        return await call_next(ctx)
