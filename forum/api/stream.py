"""`GET /api/v1/events/stream` (§16): the door of the event stream (forum.feed_stream).

Async, so that an open stream is a coroutine waiting for a note, not a worker, a thread or a database
connection. Everything that can refuse runs first, in the request's thread and through the REST API's own
authentication and selectors, so a refusal is the §13 JSON answer and no stream opens: token_invalid,
invalid_body, token_right_missing, not_found, then the per-token stream limit (limit_exceeded, 409). An
open stream whose caller may no longer read ends with the refusal as its last frame (forum.feed_stream)."""
import asyncio

from asgiref.sync import sync_to_async
from django.http import JsonResponse, StreamingHttpResponse
from rest_framework.request import Request
from rest_framework.settings import api_settings

from forum import cursors
from forum.actors import Actor
from forum.envelope import EXTENSION_PATTERN
from forum.feed import feed_setting
from forum.feed_slots import SLOTS, owner_key
from forum.feed_stream import head, sse_frames, stream_for
from forum.operations import AWAITING_ACTS, THREAD_ARG, paging, paging_fields
from parley_site.database_turns import database_turn
from parley_site.errors import LimitExceeded, TokenInvalid
from parley_site.exception_handler import as_parley_error, json_refusal, method_not_allowed_body
from parley_site.shapes import Obj, Str


def stream_shape():
    return Obj({
        **THREAD_ARG, **paging_fields(),
        "inbox": Str(enum=["0", "1", "false", "true"], description="1: stream the caller's inbox instead"),
        "awaiting": Str(enum=AWAITING_ACTS, description="with inbox=1: as inbox's awaiting"),
        "extension": Str(pattern=EXTENSION_PATTERN, description="with inbox=1: the caller's extension"),
    })


def authenticate(request):
    """The REST API's own authentication classes, so the stream knows exactly the callers REST knows."""
    actor = Request(request, authenticators=[cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES]).auth
    if not isinstance(actor, Actor):
        raise TokenInvalid()
    return actor


def open_stream(request):
    """Every check, the first read, and a stream slot; returns (stream, first items, release)."""
    with database_turn():  # the request's own, through its middleware; a turn of its own otherwise
        actor = authenticate(request)
        args = stream_shape().validate({name: request.GET.get(name) for name in request.GET})
        stream = stream_for(actor, args, args.get("limit", 50))
        stream.after = starting_position(request, args, stream.scope)
        first_items = stream.next_items()  # token_right_missing, not_found
        owner, maximum = owner_key(actor), feed_setting("streams_per_token_max")
        slot = SLOTS.acquire(owner, maximum)
        if slot is None:
            raise LimitExceeded("streams_per_token_max", maximum)
    return stream, first_items, lambda: SLOTS.release(owner, slot)


def starting_position(request, args, scope):
    resume = request.headers.get("Last-Event-ID")
    if resume is not None:  # a reconnect resumes where it stopped, whatever the URL's own since= says
        return cursors.decode(scope, resume, "Last-Event-ID")
    if "since" in args or "cursor" in args:
        return paging(args, scope)[0]
    return head(scope)


async def event_stream(request):
    if request.method != "GET":
        return JsonResponse(method_not_allowed_body(request.method), status=405, headers={"Allow": "GET"})
    opening = asyncio.ensure_future(sync_to_async(open_stream)(request))
    try:
        stream, first_items, release = await asyncio.shield(opening)
    except asyncio.CancelledError:
        # The client left while the checks ran in their thread; free the slot they may still take.
        opening.add_done_callback(lambda done: done.exception() is None and done.result()[2]())
        raise
    except Exception as exc:  # noqa: BLE001  refusals become §13 JSON; anything else stays a real 500
        error = as_parley_error(exc)
        if error is None:
            raise
        return json_refusal(error)
    return EventStreamResponse(sse_frames(stream, first_items), release)


class EventStreamResponse(StreamingHttpResponse):
    """Frees the stream's slot when it closes, which the server does however the client left."""

    def __init__(self, frames, release):
        super().__init__(frames, content_type="text/event-stream")
        self["Cache-Control"] = "no-cache"
        self["X-Accel-Buffering"] = "no"  # tell nginx not to buffer the stream
        self.release = release

    def close(self):
        try:
            self.release()
        finally:
            super().close()
