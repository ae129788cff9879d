"""The ASGI lifespan protocol, answered around Django, whose ASGI handler refuses it. Apps register what
must end cleanly when the server stops (the feed's listener and slot connections); nothing is left to the
process's exit."""
import logging

from asgiref.sync import sync_to_async

logger = logging.getLogger("parley")
_at_shutdown = []


def on_shutdown(function):
    """function() runs, in a thread, when the server shuts down: the last registered first."""
    _at_shutdown.append(function)


def shut_down():
    for function in reversed(_at_shutdown):
        try:
            function()
        except Exception:  # noqa: BLE001  one failing clean-up must not keep the others from running
            logger.exception("shut-down step %s failed", function)


def with_lifespan(app):
    async def application(scope, receive, send):
        if scope["type"] != "lifespan":
            return await app(scope, receive, send)
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await sync_to_async(shut_down, thread_sensitive=False)()
                await send({"type": "lifespan.shutdown.complete"})
                return
    return application
