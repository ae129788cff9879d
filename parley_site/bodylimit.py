"""Request bodies are bounded while they arrive (§14.1 "Sizes are enforced while reading"). Django's ASGI
handler reads a whole body, spooling it to disk past a threshold, before any middleware or view can look
at it; this ASGI layer in front of it reads at most the limit and refuses the rest unread: 413 at once for
a declared length over it, and as soon as the bytes received pass it otherwise. §13 puts `token_invalid`
before that 413: a request that carries no credential at all (no `Authorization` header, no session
cookie) is known to be one before its body is read, and is answered 401 instead of the 413. A credential
that is present but not valid is only found out by the application, after the size (docs/protocol.md §13).

A body small enough to hold (every JSON request) is read here whole and handed on. A streamed route (an
artifact upload, §18) has a larger limit of its own, its own check of the caller before any of its body is
read, and a deadline for the whole body; it is handed on as it arrives, counted on the way, so that it is
never held in memory here: past its limit or its deadline the application is told the client left (Django
then answers nothing) and this layer answers the refusal."""
import asyncio
import json
from dataclasses import dataclass
from typing import Awaitable, Callable

from django.conf import settings
from django.http.cookie import parse_cookie


@dataclass(frozen=True)
class Refusal:
    """An answer given here, in front of the application."""
    status: int
    body: dict
    headers: tuple = ()

    @classmethod
    def of(cls, error):
        """The answer of a §13 refusal (a parley_site.errors.ParleyError)."""
        return cls(error.status, error.as_body(), tuple(error.headers().items()))


@dataclass(frozen=True)
class Streamed:
    """A route whose body passes through as it arrives: its limit, its 413, the check of its caller before
    the body (an awaitable Refusal or None), the seconds its whole body may take, and the refusal then."""
    limit: int
    too_large: Refusal
    checked: Callable[[dict], Awaitable[Refusal | None]]
    body_seconds: float
    stalled: Refusal


def carries_credential(scope):
    """Whether the request carries anything that could authenticate it: a bearer header or a session."""
    headers = dict(scope["headers"])
    if headers.get(b"authorization"):
        return True
    cookies = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
    return bool(cookies.get(settings.SESSION_COOKIE_NAME))


def bounded_bodies(app, max_bytes, refusal_for, streamed=lambda scope: None):
    """`max_bytes()`: the limit; `refusal_for(scope)`: the Refusal of a body over it on that request;
    `streamed(scope)`: None, or the Streamed plan of a request whose body passes through as it arrives."""
    async def guarded(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        passing = streamed(scope)
        limit = passing.limit if passing else max_bytes()
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if passing:
            refusal = await passing.checked(scope)
            if refusal is not None:
                return await refuse(send, refusal)
        if declared.isdigit() and int(declared) > limit:
            return await refuse(send, passing.too_large if passing else refusal_for(scope))
        if passing:
            return await pass_counted(app, scope, receive, send, passing)
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its body arrived: nothing to answer
            body += message.get("body", b"")
            if len(body) > limit:
                return await refuse(send, refusal_for(scope))
            if not message.get("more_body"):
                break
        return await app(scope, replaying(bytes(body), receive), send)
    return guarded


async def pass_counted(app, scope, receive, send, plan):
    """The body on to `app` as it arrives; past the plan's limit or its deadline, a disconnect instead."""
    loop = asyncio.get_running_loop()
    received, refusal, started, complete = 0, None, False, False
    deadline = loop.time() + plan.body_seconds

    async def counted_receive():
        nonlocal received, refusal, complete
        if refusal is not None:
            return {"type": "http.disconnect"}
        if complete:  # Django listens for a disconnect while it answers: no deadline for that
            return await receive()
        try:
            message = await asyncio.wait_for(receive(), max(0, deadline - loop.time()))
        except TimeoutError:
            refusal = plan.stalled
            return {"type": "http.disconnect"}
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            complete = not message.get("more_body")
            if received > plan.limit:
                refusal = plan.too_large
                return {"type": "http.disconnect"}
        return message

    async def watched_send(message):
        nonlocal started
        started = True
        await send(message)
    await app(scope, counted_receive, watched_send)
    if refusal is not None and not started:
        await refuse(send, refusal)


def replaying(body, receive):
    """The body, received whole already, as one message; then the client's own messages (a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive_again():
        return pending.pop() if pending else await receive()
    return receive_again


async def refuse(send, refusal):
    content = json.dumps(refusal.body).encode()
    await send({"type": "http.response.start", "status": refusal.status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode()),
                            *((name.lower().encode(), value.encode()) for name, value in refusal.headers),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": content})
