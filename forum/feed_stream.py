"""The event stream of profile `feed` (§16), apart from its HTTP door (forum.api.stream).

A stream follows one list, read through the same selector as its operation: the state events (all, or one
thread's; what `list_events` reads) or, with `inbox=1`, the caller's inbox (what `inbox` reads, with its
`awaiting` and `extension`). Each SSE event is one item of that list: `id:` the list's own cursor just past
it, `data:` the item as the operation renders it. Resuming from an id therefore continues exactly where
the client stopped, and an agent can switch between polling and streaming with the same cursor."""
import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

from django.db import InterfaceError, OperationalError, connection
from django.db.models import Max

from forum import cursors, selectors
from forum.actors import Actor
from forum.feed import concerns_events, concerns_inbox, feed_setting
from forum.feed_hub import HUB
from forum.feed_lines import LineChecks
from forum.models import Right, StateEvent, Thread
from forum.policies import has_right
from forum.wire import event_json, thread_json
from parley_site.errors import InvalidBody, TokenInvalid, TokenRightMissing

RETRY_MILLISECONDS = 2000  # how soon an EventSource reconnects after a dropped connection
# The reads of open streams share a few threads and so a few database connections per process, however
# many streams are open.
READS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="parley-feed-read")


@dataclass
class Stream:
    """What one open stream follows, for whom, and how far it has got (`after`, a position in the list)."""
    actor: Actor
    needs: tuple  # the rights its selector requires: a heartbeat checks them without reading
    scope: str
    key: tuple  # equal for streams whose reads from one position give the same answer
    read: Callable  # (actor, after, limit) -> items
    position: Callable  # item -> its position in the list
    render: Callable  # item -> JSON
    concerns: Callable  # note -> may it concern this stream?
    page: int
    after: int = 0
    caught_up: bool = False  # nothing more to read until a note comes

    def fetch(self, after):
        """The items after `after`. Writes take their places in commit order (forum.sequences.take_places),
        so a stream that passed a position never misses an item committed later."""
        return self.read(self.actor, after, self.page)

    def take(self, items):
        self.caught_up = len(items) < self.page
        return items

    def next_items(self):
        return self.take(self.fetch(self.after))

    def frame(self, item):
        self.after = self.position(item)
        data = json.dumps(self.render(item), separators=(",", ":"))
        return f"id: {cursors.encode(self.scope, self.after)}\ndata: {data}\n\n"


def stream_for(actor, args, page):
    """The stream `args` (the door's validated query) asks for. Raises invalid_body for filters that do
    not apply to the chosen list."""
    if args.get("inbox") in ("1", "true"):
        if "thread" in args:
            raise InvalidBody("the inbox stream has no thread filter; drop thread or inbox", field="thread")
        awaiting, extension = args.get("awaiting", "answer"), args.get("extension", "")
        needs = (Right.READ, Right.LOCK) if awaiting == "confirmation" else (Right.READ,)

        def read_inbox(reader, after, size):
            return selectors.inbox(reader, awaiting=awaiting, extension=extension, after=after, limit=size)
        return Stream(actor, needs, "inbox", ("inbox", actor.identity, awaiting, extension, page), read_inbox,
                      lambda thread: thread.awaiting_seq, thread_json, concerns_inbox(actor.identity, awaiting), page)
    for name in ("awaiting", "extension"):
        if name in args:
            raise InvalidBody(f"{name} applies to the inbox stream (inbox=1)", field=name)
    thread_id = args.get("thread")

    def read_events(reader, after, size):
        return selectors.event_list(reader, thread_id=thread_id, after=after, limit=size)
    # Every caller with `read` sees the same events, so the key names no caller: their streams share reads.
    return Stream(actor, (Right.READ,), "events", ("events", thread_id, page), read_events, lambda event: event.pk,
                  event_json, concerns_events(thread_id), page)


def head(scope):
    """The list's current end: a stream opened without a cursor starts after it (§14.1)."""
    if scope == "inbox":
        return Thread.objects.aggregate(end=Max("awaiting_seq"))["end"] or 0
    return StateEvent.objects.aggregate(end=Max("id"))["end"] or 0


def closing_a_broken_connection(function, *args):
    try:
        return function(*args)
    except (OperationalError, InterfaceError):
        connection.close()  # this pool thread's connection is broken; the next read opens a new one
        raise


def on_pool(function, *args):
    """function(*args) on the streams' read pool, awaitable."""
    return asyncio.get_running_loop().run_in_executor(READS, closing_a_broken_connection, function, *args)


class SharedReads:
    """Streams of one process that follow the same list from the same position read it once: one note can
    wake hundreds of streams, which would otherwise all ask the database the same question."""

    def __init__(self):
        self._flights = {}  # (stream key, position) -> (when the read was sent, its future)

    async def fetch(self, stream, fresh_since):
        """The fetched answer for stream.after, from a read sent no earlier than `fresh_since` (a read
        sent before a note arrived may not see the write the note announces)."""
        loop = asyncio.get_running_loop()
        key = (stream.key, stream.after)
        flight = self._flights.get(key)
        if flight is None or flight[0] < fresh_since:
            flight = (loop.time(), on_pool(stream.fetch, stream.after))
            self._flights[key] = flight
            flight[1].add_done_callback(lambda _: self._flights.get(key) is flight and self._flights.pop(key))
        return await asyncio.shield(flight[1])  # one stream leaving must not cancel the others' read


SHARED_READS = SharedReads()
LINE_CHECKS = LineChecks(on_pool)


async def refusal_now(stream):
    """None while the stream's caller may still read it (the stream then reads as the caller is now), else
    the refusal a reconnect would get."""
    actor = await LINE_CHECKS.current(stream.actor)
    if actor is None:
        return TokenInvalid("the token was revoked (or the session ended) while the stream was open")
    missing = [right for right in stream.needs if not has_right(actor, right)]
    if missing:
        return TokenRightMissing(missing[0])
    stream.actor = actor
    return None


def refusal_frame(error):
    """A stream's last frame when its caller may no longer read it: the §13 refusal as an `error` event (no
    `id:`, so a reconnect resumes after the last item delivered)."""
    return f"event: error\ndata: {json.dumps(error.as_body(), separators=(',', ':'))}\n\n"


async def woken_within(woken, seconds):
    try:
        await asyncio.wait_for(woken.wait(), seconds)
    except TimeoutError:
        return False
    woken.clear()
    return True


async def sse_frames(stream, first_items):
    """The stream's text: the first items, then whatever arrives, a comment heartbeat after each quiet
    `heartbeat_seconds`. Ends when the client goes (the server cancels it), or with a last `error` frame
    when its caller may no longer read it: checked at each heartbeat and after each wake, before reading."""
    loop = asyncio.get_running_loop()
    woken, noted_at = asyncio.Event(), [loop.time()]

    def wake():
        noted_at[0] = loop.time()
        woken.set()

    waiter = HUB.subscribe(stream.concerns, lambda: loop.call_soon_threadsafe(wake))
    woken.set()  # re-read once: a write may have committed between the first read and subscribing
    heartbeat = feed_setting("heartbeat_seconds")
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n"
        items, quiet_since = first_items, loop.time()
        while True:
            for item in items:
                yield stream.frame(item)
                quiet_since = loop.time()
            fresh_since = loop.time()
            if stream.caught_up:
                noted = await woken_within(woken, quiet_since + heartbeat - loop.time())
                fresh_since = noted_at[0]
                refusal = await refusal_now(stream)
                if refusal is not None:
                    yield refusal_frame(refusal)
                    return
                if not noted:
                    yield ": heartbeat\n\n"
                    quiet_since, items = loop.time(), []
                    continue
            items = stream.take(await SHARED_READS.fetch(stream, fresh_since))
    finally:
        HUB.unsubscribe(waiter)
