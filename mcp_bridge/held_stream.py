"""A held `tools/call` answered as a stream (Parley v1 §2, "Held calls over MCP"). When a call holds (§16
`wait`) and the request's Accept names `text/event-stream`, its answer becomes Server-Sent Events as soon
as it holds: a comment heartbeat then and every HEARTBEAT_SECONDS, with a `notifications/progress` beside
each when the request carried `_meta.progressToken`, then the one JSON-RPC result. So a client whose HTTP
read times out after a few quiet seconds, or a proxy that cuts idle connections, sees bytes while the call
waits. A client that accepts only `application/json`, or sends no Accept or `*/*` (curl, a hand-written
client, which always got JSON), gets JSON, as every answer that does not hold.

Why not the SDK's own streams: its transports choose between JSON and a stream per request, before the
handler runs (the handshake-era one by configuration, and then every answer is a stream; the 2026-07-28 one
after a notification or 15 silent seconds, pinging every 15 s, a private constant), and in JSON mode they
drop a request's notifications. §2 wants the choice made when the call holds, and a heartbeat at once and
every 5 s. What is the SDK's stays so: the result is the JSON the SDK serialised for the answer, sent as
the stream's last event; the events are framed by sse-starlette, the SDK's own SSE library; the progress
notification is the SDK's type."""
import contextvars
from contextlib import asynccontextmanager

import anyio
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp_types import JSONRPCNotification, ProgressNotification, ProgressNotificationParams
from sse_starlette.event import ServerSentEvent

HEARTBEAT_SECONDS = 5
HEAD = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")]

# The HeldStream of the HTTP request being served (mcp_bridge.http); unset on stdio, which never streams.
HELD_STREAM = contextvars.ContextVar("parley_mcp_held_stream", default=None)


class HeldStream:
    """One request to /mcp, whose answer turns into a stream if its call holds. The transport answers
    through `send`; until then it passes straight through."""

    def __init__(self, send, accepts_stream):
        self._send, self.accepts_stream = send, accepts_stream
        self.streaming, self._result = False, b""

    async def send(self, message):
        if not self.streaming:
            return await self._send(message)
        if message["type"] == "http.response.start":
            return  # the stream's head went out when the call started to hold
        self._result += message.get("body", b"")
        if not message.get("more_body"):
            last = ServerSentEvent(self._result.decode(), event="message").encode()
            await self._send({"type": "http.response.body", "body": last, "more_body": False})

    @asynccontextmanager
    async def holding(self, progress_token):
        """While the call holds: the stream's head, then heartbeats until the call has its answer."""
        if not self.accepts_stream:
            yield
            return
        self.streaming = True
        await self._send({"type": "http.response.start", "status": 200, "headers": HEAD})
        async with anyio.create_task_group() as beating:
            beating.start_soon(self._beat, progress_token)
            try:
                yield
            finally:
                beating.cancel_scope.cancel()

    async def _beat(self, progress_token):
        started = anyio.current_time()
        while True:
            frame = ServerSentEvent(comment="heartbeat").encode()
            if progress_token is not None:
                frame += progress_event(progress_token, round(anyio.current_time() - started))
            await self._send({"type": "http.response.body", "body": frame, "more_body": True})
            await anyio.sleep(HEARTBEAT_SECONDS)


def progress_event(token, seconds):
    """`notifications/progress`: the seconds the call has held so far, which only grow."""
    params = ProgressNotificationParams(progress_token=token, progress=seconds,
                                        message="waiting for something new (wait)")
    notification = ProgressNotification(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
    message = JSONRPCNotification(jsonrpc="2.0", **notification)
    return ServerSentEvent(message.model_dump_json(by_alias=True, exclude_none=True), event="message").encode()


@asynccontextmanager
async def holding(params):
    """Around the wait of a `tools/call` whose raw `params` are given: a stream where the request allows
    one (HeldStream.holding), nothing anywhere else."""
    stream = HELD_STREAM.get()
    if stream is None:
        yield
        return
    async with stream.holding(progress_token_from_params(params)):
        yield
