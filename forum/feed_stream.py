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
from forum.feed import concerns_events, concerns_inbox, feed_setting
from forum.feed_hub import HUB
from forum.models import StateEvent, Thread
from forum.wire import event_json, thread_json
from parley_site.errors import InvalidBody

RETRY_MILLISECONDS = 2000  # how soon an EventSource reconnects after a dropped connection
# The reads of open streams share a few threads and so a few database connections per process, however
# many streams are open.
READS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="parley-feed-read")


@dataclass
class Stream:
    """What one open stream follows, and how far it has got (`after`, a position in the list)."""
    scope: str
    read: Callable  # (after, limit) -> items
    position: Callable  # item -> its position in the list
    render: Callable  # item -> JSON
    concerns: Callable  # note -> may it concern this stream?
    page: int
    after: int = 0

    def next_items(self):
        return self.read(self.after, self.page)

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
        return Stream("inbox", lambda after, size: selectors.inbox(
            actor, awaiting=awaiting, extension=extension, after=after, limit=size),
            lambda thread: thread.awaiting_seq, thread_json, concerns_inbox(actor.identity, awaiting), page)
    for name in ("awaiting", "extension"):
        if name in args:
            raise InvalidBody(f"{name} applies to the inbox stream (inbox=1)", field=name)
    thread_id = args.get("thread")
    return Stream("events", lambda after, size: selectors.event_list(
        actor, thread_id=thread_id, after=after, limit=size),
        lambda event: event.pk, event_json, concerns_events(thread_id), page)


def head(scope):
    """The list's current end: a stream opened without a cursor starts after it (§14.1)."""
    if scope == "inbox":
        return Thread.objects.aggregate(end=Max("awaiting_seq"))["end"] or 0
    return StateEvent.objects.aggregate(end=Max("id"))["end"] or 0


def guarded_read(stream):
    try:
        return stream.next_items()
    except (OperationalError, InterfaceError):
        connection.close()  # this pool thread's connection is broken; the next read opens a new one
        raise


async def sse_frames(stream, first_items):
    """The stream's text: the first items, then whatever arrives, a comment heartbeat after each quiet
    `heartbeat_seconds`. Ends only when the client goes (the server cancels it)."""
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()
    waiter = HUB.subscribe(stream.concerns, lambda: loop.call_soon_threadsafe(woken.set))
    woken.set()  # re-read once: a write may have committed between the first read and subscribing
    heartbeat = feed_setting("heartbeat_seconds")
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n"
        items = first_items
        while True:
            for item in items:
                yield stream.frame(item)
            if len(items) < stream.page:  # caught up: sleep until a note concerns us
                try:
                    await asyncio.wait_for(woken.wait(), heartbeat)
                except TimeoutError:
                    yield ": heartbeat\n\n"
                    items = []
                    continue
                woken.clear()
            items = await loop.run_in_executor(READS, guarded_read, stream)
    finally:
        HUB.unsubscribe(waiter)
