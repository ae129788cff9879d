"""A list call that holds (§16, profile feed). When a caller asks `inbox` or `list_events` to wait and
nothing is new after its cursor, the profile that holds does not sleep: its `hold` hook returns a Held, the
page to come. forum.dispatch.call alone knows it: it gives the door an awaitable of the call's answer
instead of the answer, and the door awaits it on the server's event loop, where waiting costs a coroutine,
not a thread or a connection. A Django door answers a HeldResponse, which HeldResponseMiddleware
completes there."""
import asyncio
import contextvars
from dataclasses import dataclass
from typing import Protocol

from asgiref.sync import markcoroutinefunction
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse

from forum.actors import Actor
from forum.listings import Listing

# The event loop serving the current request, where a held call can wait; None where nothing can (a WSGI
# server), and a call that would hold is then refused at once. Set by HeldResponseMiddleware.
SERVING_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "parley_serving_loop", default=None)


class Wait(Protocol):
    """The holding profile's own handle on one wait: `await wait.outcome(held)` waits and gives the page's
    items (none when the time is up) or raises the refusal the caller meets meanwhile (a revoked token, a
    lost right); release() frees what it holds, and twice is harmless."""

    async def outcome(self, held: "Held") -> list: ...

    def release(self) -> None: ...


@dataclass(frozen=True)
class Held:
    listing: Listing
    actor: Actor
    after: int
    limit: int
    seconds: int
    waiting: Wait  # the holding profile's own handle on this wait

    async def page(self):
        """The page's body once the wait ends; what the wait holds is freed however it ends, a client that
        leaves (which cancels this) included."""
        try:
            items = await self.waiting.outcome(self)
        finally:
            self.waiting.release()
        return self.listing.page(items, self.after)


class HeldResponse(HttpResponse):
    """What a Django door answers for a call that holds: a JSON response whose status, body and headers are
    those of `answer`, an awaitable of the door's rendered answer, once it is there."""

    def __init__(self, answer):
        super().__init__(content_type="application/json")
        self.answer = answer

    async def complete(self):
        answer = await self.answer
        self.status_code, self.content = answer.status_code, answer.content
        if self.has_header("Content-Length"):  # set by CommonMiddleware for the body it saw: none yet
            self["Content-Length"] = str(len(self.content))
        for name, value in answer.items():
            self[name] = value


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
            await response.complete()
        return response
