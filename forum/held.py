"""A list call held open (§16, profile feed). When a caller asks `inbox` or `list_events` to wait and
nothing is new after its cursor, the operation does not sleep: it returns a Held. Each door on the way out
adds how it renders the outcome (`then`), and hands the server a HeldResponse, which the profile that holds
completes on the server's event loop: there, waiting costs a coroutine, not a thread or a connection."""
import asyncio
import contextvars
from dataclasses import dataclass, replace
from typing import Callable

from asgiref.sync import markcoroutinefunction
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse

from forum.actors import Actor
from forum.listings import Listing
from parley_site.exception_handler import as_parley_error

# The event loop serving the current request, where a held call can wait; None where nothing can (a WSGI
# server), and a call that would hold is then refused at once. Set by HeldResponseMiddleware.
SERVING_LOOP = contextvars.ContextVar("parley_serving_loop", default=None)


@dataclass(frozen=True)
class Held:
    listing: Listing
    actor: Actor
    after: int
    limit: int
    seconds: int
    # The holding profile's own handle on this wait: `await outcome(held)` waits, release() frees what
    # it holds.
    waiting: object
    # outcome -> what the door answers, where the outcome is the page's items (empty when the time is up)
    # or the ParleyError the caller meets when it is woken (a revoked token, a lost right).
    render: Callable

    def then(self, step):
        """The same held call, its answer passed through step() on the way out of one more door."""
        return replace(self, render=lambda outcome: step(self.render(outcome)))


class HeldResponse(HttpResponse):
    """What a door answers for a Held: a JSON response whose status and body are set once the wait ends,
    by the holding profile's middleware. Its render() must give (status, body bytes, headers)."""

    def __init__(self, held):
        super().__init__(content_type="application/json")
        self.held = held

    def complete(self, outcome):
        status, content, headers = self.held.render(outcome)
        self.status_code, self.content = status, content
        if self.has_header("Content-Length"):  # set by CommonMiddleware for the body it saw: none yet
            self["Content-Length"] = str(len(content))
        for name, value in headers.items():
            self[name] = value

    def close(self):
        try:
            self.held.waiting.release()  # however the request ended; releasing twice is harmless
        finally:
            super().close()


class HeldResponseMiddleware:
    """Outermost but for the health check and the request log, so that everything inside it, sync
    middleware and views, has run and given back its thread before a held call waits on the event loop.
    Under ASGI it marks each request as served by the loop and completes the held responses; under WSGI
    it marks nothing, so a call that would hold is refused instead."""

    sync_capable, async_capable = False, True

    def __init__(self, get_response):
        self.get_response = get_response
        markcoroutinefunction(self)

    async def __call__(self, request):
        SERVING_LOOP.set(asyncio.get_running_loop() if isinstance(request, ASGIRequest) else None)
        response = await self.get_response(request)
        if isinstance(response, HeldResponse):
            response.complete(await outcome_of(response.held))
        return response


async def outcome_of(held):
    """What a held call ends with; a database that fails meanwhile is a refusal too (503), as anywhere."""
    try:
        return await held.waiting.outcome(held)
    except Exception as exc:  # noqa: BLE001  a refusal is the outcome; anything else stays a real fault
        error = as_parley_error(exc)
        if error is None:
            raise
        return error
    finally:
        held.waiting.release()
