"""Request bodies are bounded while they arrive (§14.1 "Sizes are enforced while reading"). Django's ASGI
handler reads a whole body, spooling it to disk past a threshold, before any middleware or view can look
at it; this ASGI layer in front of it reads at most the limit and refuses the rest unread: 413 at once for
a declared length over it, and as soon as the bytes received pass it otherwise.

A body small enough to hold (every JSON request) is read here whole and handed on. A streamed route (an
artifact upload, §18) has a larger limit of its own and is handed on as it arrives, counted on the way, so
that it is never held in memory here: past its limit the application is told the client left (Django then
answers nothing) and this layer answers the 413."""
import json


def bounded_bodies(app, max_bytes, refusal_for, streamed=lambda scope: None):
    """`max_bytes()`: the limit; `refusal_for(path)`: the JSON body of the 413 for that path;
    `streamed(scope)`: None, or (limit, refusal body) for a request whose body passes through as it
    arrives."""
    async def guarded(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        passing = streamed(scope)
        limit, refusal = passing if passing else (max_bytes(), None)
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            return await refuse(send, refusal or refusal_for(scope["path"]))
        if passing:
            return await pass_counted(app, scope, receive, send, limit, refusal)
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its body arrived: nothing to answer
            body += message.get("body", b"")
            if len(body) > limit:
                return await refuse(send, refusal_for(scope["path"]))
            if not message.get("more_body"):
                break
        return await app(scope, replaying(bytes(body), receive), send)
    return guarded


async def pass_counted(app, scope, receive, send, limit, refusal):
    received, over, started = 0, False, False

    async def counted_receive():
        nonlocal received, over
        if over:
            return {"type": "http.disconnect"}
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                over = True
                return {"type": "http.disconnect"}
        return message

    async def watched_send(message):
        nonlocal started
        started = True
        await send(message)
    await app(scope, counted_receive, watched_send)
    if over and not started:
        await refuse(send, refusal)


def replaying(body, receive):
    """The body, received whole already, as one message; then the client's own messages (a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive_again():
        return pending.pop() if pending else await receive()
    return receive_again


async def refuse(send, refusal):
    content = json.dumps(refusal).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": content})
