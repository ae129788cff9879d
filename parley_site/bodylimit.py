"""Request bodies are bounded while they arrive (§14.1 "Sizes are enforced while reading"). Django's ASGI
handler reads a whole body, spooling it to disk past a threshold, before any middleware or view can look
at it; this ASGI layer in front of it reads at most the limit and refuses the rest unread: 413 at once for
a declared length over it, and as soon as the bytes received pass it otherwise."""
import json


def bounded_bodies(app, max_bytes, refusal_for):
    """`max_bytes()`: the limit; `refusal_for(path)`: the JSON body of the 413 for that path."""
    async def guarded(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        limit = max_bytes()
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            return await refuse(send, refusal_for(scope["path"]))
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
