"""`GET /api/v1/events/stream` (§16): the door of the event stream (feed.stream).

A plain sync view: everything that can refuse runs in the request's thread, through the REST API's own
authentication and selectors, so a refusal is the §13 JSON answer and no stream opens: token_invalid,
invalid_body, token_right_missing, not_found, then the per-token stream limit (limit_exceeded, 409). The
stream it answers is an async iterator that the ASGI server drives on its event loop: an open stream is a
coroutine waiting for a note, not a thread or a database connection. A WSGI server cannot drive one (Django
would collect it into a list that never ends), so there the stream is refused at once (503 unavailable)."""
from django.http import StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.request import Request
from rest_framework.settings import api_settings

from feed.follow import Subscription
from feed.profile import feed_setting
from feed.slots import SLOTS, STREAMS, owner_key
from feed.stream import head, sse_frames, stream_for
from feed.wait import cannot_hold
from forum import cursors
from forum.actors import Actor
from forum.envelope import EXTENSION_PATTERN
from forum.held import SERVING_LOOP
from forum.models import AwaitingAct
from forum.operations import THREAD_ARG
from forum.own_writes import read_for
from forum.paging import paging, paging_fields
from forum.profiles import operation_arguments
from parley_site import metrics
from parley_site.doors import Door
from parley_site.errors import LimitExceeded, MethodNotAllowed, TokenInvalid
from parley_site.exception_handler import json_refusal
from parley_site.shapes import Obj, Str


def stream_shape():
    return Obj({
        **THREAD_ARG, **paging_fields(),
        "inbox": Str(enum=["0", "1", "false", "true"], description="1: stream the caller's inbox instead"),
        "awaiting": Str(enum=AwaitingAct.values, description="with inbox=1: as inbox's awaiting"),
        "extension": Str(pattern=EXTENSION_PATTERN, description="with inbox=1: the caller's extension"),
        **operation_arguments("stream"),  # a profile's filters of the stream (rooms: room=, §20)
    })


def authenticate(request):
    """The REST API's own authentication classes, so the stream knows exactly the callers REST knows."""
    actor = Request(request, authenticators=[cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES]).auth
    if not isinstance(actor, Actor):
        raise TokenInvalid()
    return actor


def starting_position(request, args, scope):
    resume = request.headers.get("Last-Event-ID")
    if resume is not None:  # a reconnect resumes where it stopped, whatever the URL's own since= says
        return cursors.decode(scope, resume, "Last-Event-ID")
    if "since" in args or "cursor" in args:
        return paging(args, scope)[0]
    return head(scope)


def open_stream(request):
    """Every check, the first read (subscribed before it, so no write slips between) and a stream slot."""
    actor = authenticate(request)
    args = stream_shape().validate({name: request.GET.get(name) for name in request.GET})
    stream = stream_for(actor, args, args.get("limit", 50))
    stream.after = starting_position(request, args, stream.listing.scope)
    loop = SERVING_LOOP.get()
    if loop is None:
        stream.next_items()  # token_right_missing, not_found: the refusals come first, as anywhere
        raise cannot_hold("an event stream")
    subscription = Subscription(loop, stream.listing.topic)
    try:
        # token_right_missing, not_found; and every write committed before the subscription, on whichever
        # copy (§19): its note has passed.
        first_items = read_for(actor, stream.next_items, woken_at=subscription.noted_at)
        owner, maximum = owner_key(actor), feed_setting("streams_per_token_max")
        slot = SLOTS.acquire(STREAMS, owner, maximum)
        if slot is None:
            raise LimitExceeded("streams_per_token_max", maximum)
    except BaseException:
        subscription.cancel()
        raise

    def release():
        subscription.cancel()  # the frames may never have started (a client gone before the first byte)
        SLOTS.release(STREAMS, owner, slot)
        metrics.OPEN_STREAMS.dec()
    metrics.OPEN_STREAMS.inc()
    return EventStreamResponse(sse_frames(stream, first_items, subscription), release)


def streamed_operation(request):
    """The §12 operation whose list a stream follows, for its count."""
    return "inbox" if request.GET.get("inbox") in ("1", "true") else "list_events"


def opened(request):
    if request.method != "GET":
        raise MethodNotAllowed(request.method, allow="GET")
    return open_stream(request)


STREAM = Door("stream", refuse=json_refusal)


@csrf_exempt  # any method but GET gets the JSON 405 below, not Django's CSRF page
def event_stream(request):
    return STREAM.run(streamed_operation(request), opened, request)


class EventStreamResponse(StreamingHttpResponse):
    """Frees the stream's slot when it closes, which the server does however the client left."""

    def __init__(self, frames, release):
        super().__init__(frames, content_type="text/event-stream")
        self["Cache-Control"] = "no-cache"
        self["X-Accel-Buffering"] = "no"  # tell nginx not to buffer the stream
        self.release = release

    def close(self):
        release, self.release = self.release, None  # once, however often the server closes it
        try:
            if release is not None:
                release()
        finally:
            super().close()
