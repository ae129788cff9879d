"""`wait` on `inbox` and `list_events` (§16): with nothing new after the cursor, the call holds until a
committed write could have changed its answer, or the time is up.

The operation runs as any other, in the request's thread: every check, then the first read, subscribed
before it so that no write slips between. With something to answer it answers. Otherwise it returns a
forum.held.Held and its thread and database connection go back; the waiting itself is a coroutine on the
server's event loop (Waiting.outcome), which re-reads on the shared read pool when a note may concern it.
Where no event loop serves the request (a WSGI server), a wait is refused at once with `503 unavailable`
naming the fix, never held in a thread."""
from functools import partial

from django.conf import settings

from feed.follow import READS, SHARED_READS, Subscription, caller_now, until_checked
from feed.slots import SLOTS, WAITS, owner_key
from forum.held import SERVING_LOOP, Held
from forum.own_writes import read_for
from parley_site import metrics
from parley_site.errors import LimitExceeded, Unavailable


def cannot_hold(what):
    return Unavailable(f"this server cannot hold {what}: it serves WSGI, where holding would pin a worker thread",
                       fix="serve the ASGI application parley_site.asgi:application, as `gunicorn -c "
                           "gunicorn.conf.py` and `make run` do")


def hold(actor, args, listing, after, limit):
    """The profile's hook (forum.profiles.followed_page): the page after `after`, or a Held of it when the
    caller asked to wait and the page is empty."""
    seconds, loop = args.get("wait"), SERVING_LOOP.get()
    if seconds and loop is not None:
        waiting = Waiting(loop, listing.topic)  # before the read: a write committed after it wakes us
        try:
            # And one committed before must be in the read, on whichever copy (§19): its note has passed.
            items = read_for(actor, partial(listing.read, actor, after, limit), woken_at=waiting.started)
        except BaseException:
            waiting.release()
            raise
        if not items:
            return Held(listing, actor, after, limit, seconds, waiting)
        waiting.release()
    else:
        items = listing.read(actor, after, limit)
        if seconds and not items:  # every check, and an answer if there is one: only holding is refused
            raise cannot_hold("a waiting call (nothing is new yet; call again without wait, or later)")
    return listing.page(items, after)


class Waiting:
    """One held call: its subscription to notes and, once it holds, one of its line's wait slots."""

    def __init__(self, loop, topic):
        self.loop = loop
        self.started = loop.time()
        self.subscription = Subscription(loop, topic)
        self.slot = None
        self.released = False

    async def outcome(self, held):
        """The page's items once something new is there, [] when the time is up; raises the refusal the
        caller meets meanwhile: too many waits of its line, or a revoked token, a secret rotated away or a
        lost right (re-checked before every read, when the credential stops by time and before answering,
        §16)."""
        owner, maximum = owner_key(held.actor), settings.PARLEY_FEED["waits_per_token_max"]
        slot = await self.loop.run_in_executor(READS, SLOTS.acquire, WAITS, owner, maximum)
        if slot is None:
            raise LimitExceeded("waits_per_token_max", maximum)
        self.slot = (owner, slot)
        metrics.HELD_WAITS.inc()
        deadline = self.started + held.seconds
        actor = held.actor
        while True:
            noted = await self.subscription.woken_within(until_checked(actor, deadline - self.loop.time()))
            actor, refusal = await caller_now(actor, held.listing.needs)
            if refusal is not None:
                raise refusal
            if noted:
                items = await SHARED_READS.fetch(actor, held.listing, held.after, held.limit,
                                                 self.subscription.noted_at)
                if items:
                    return items
            elif self.loop.time() >= deadline:
                return []

    def release(self):
        """Unsubscribe and give the slot back, however the call ended (twice is harmless)."""
        if self.released:
            return
        self.released = True
        self.subscription.cancel()
        if self.slot is not None:
            metrics.HELD_WAITS.dec()
            READS.submit(SLOTS.release, WAITS, *self.slot)  # off the event loop: it may touch the database
