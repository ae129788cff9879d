"""The event stream of profile `feed` (§16), apart from its HTTP door (feed.views).

A stream follows one forum.listings.Listing, read through the same selector as its operation: the state
events (all, or one thread's; what `list_events` reads) or, with `inbox=1`, the caller's inbox (what
`inbox` reads, with its `awaiting` and `extension`). Each SSE event is one item of that list: `id:` the
list's own cursor just past it, `data:` the item as the operation renders it. Resuming from an id therefore
continues exactly where the client stopped, and an agent can switch between polling and streaming with the
same cursor."""
import asyncio
import json
from dataclasses import dataclass

from feed.follow import SHARED_READS, caller_now, until_checked
from feed.profile import feed_setting
from forum import cursors, selectors
from forum.access import list_narrowing
from forum.actors import Actor
from forum.commit_order import START, Position
from forum.listings import Listing, events_listing, inbox_listing
from forum.models import AwaitingAct
from parley_site.errors import InvalidBody, ParleyError

RETRY_MILLISECONDS = 2000  # how soon an EventSource reconnects after a dropped connection


@dataclass
class Stream:
    """What one open stream follows, for whom, and how far it has got (`after`, a position in the list)."""
    actor: Actor
    listing: Listing
    page: int
    after: Position = START
    caught_up: bool = False  # nothing more to read until a note comes

    def next_items(self):
        """The items after `after`. The list is in commit order (forum.commit_order), so a stream that passed
        a place never misses an item that appears later."""
        return self.take(self.listing.read(self.actor, self.after, self.page))

    def take(self, items):
        self.caught_up = len(items) < self.page
        return items

    def frame(self, item):
        self.after = self.listing.position(item)
        data = json.dumps(self.listing.render(item), separators=(",", ":"))
        return f"id: {cursors.encode(self.listing.scope, self.after)}\ndata: {data}\n\n"


def stream_for(actor, args, page):
    """The stream `args` (the door's validated query) asks for. Raises invalid_body for filters that do
    not apply to the chosen list."""
    if args.get("inbox") in ("1", "true"):
        if "thread" in args:
            raise InvalidBody("the inbox stream has no thread filter; drop thread or inbox", field="thread")
        listing = inbox_listing(actor.identity, args.get("awaiting", AwaitingAct.ANSWER), args.get("extension", ""),
                                list_narrowing(actor, args))
        return Stream(actor, listing, page)
    for name in ("awaiting", "extension"):
        if name in args:
            raise InvalidBody(f"{name} applies to the inbox stream (inbox=1)", field=name)
    return Stream(actor, events_listing(args.get("thread"), list_narrowing(actor, args)), page)


def head(scope):
    """The list's current end: a stream opened without a cursor starts after it (§14.1)."""
    return selectors.inbox_head() if scope == "inbox" else selectors.event_head()


def refusal_frame(error):
    """A stream's last frame when its caller may no longer read it: the §13 refusal as an `error` event (no
    `id:`, so a reconnect resumes after the last item delivered)."""
    return f"event: error\ndata: {json.dumps(error.as_body(), separators=(',', ':'))}\n\n"


async def sse_frames(stream, first_items, subscription):
    """The stream's text: `retry:` at once, the first items, then whatever arrives, a comment heartbeat
    after each quiet `heartbeat_seconds`. Ends when the client goes (the server cancels it), or with a last
    `error` frame when its caller may no longer read it: checked before every read after the first, at
    each heartbeat and when its credential stops by time, so a revoked token or a secret rotated away is not
    served even while it catches up from an old cursor; and when a read refuses (a followed thread the
    caller may no longer see is not_found, forum.access)."""
    loop = asyncio.get_running_loop()
    heartbeat = feed_setting("heartbeat_seconds")
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n"
        items, quiet_since = subscription.saw(first_items), loop.time()
        while True:
            for item in items:
                yield stream.frame(item)
                quiet_since = loop.time()
            fresh_since = loop.time()
            noted = True
            if stream.caught_up:
                noted = await subscription.woken_within(
                    until_checked(stream.actor, quiet_since + heartbeat - loop.time()))
                fresh_since = subscription.noted_at
            actor, refusal = await caller_now(stream.actor, stream.listing.needs)
            if refusal is not None:
                yield refusal_frame(refusal)
                return
            stream.actor = actor
            if not noted:
                yield ": heartbeat\n\n"
                quiet_since, items = loop.time(), []
                continue
            try:
                items = stream.take(subscription.saw(await SHARED_READS.fetch(
                    stream.actor, stream.listing, stream.after, stream.page, fresh_since)))
            except ParleyError as refusal:  # the followed thread went out of the caller's sight (§20)
                yield refusal_frame(refusal)
                return
    finally:
        subscription.cancel()
