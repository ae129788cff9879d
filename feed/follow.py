"""What every follower of a list shares, be it an open event stream (feed.stream) or a held call
(feed.wait): the wake-up by notes, the read pool, reads shared between followers, and the re-check of the
caller before each read. All of it runs on the server's event loop; only reads go to threads."""
import asyncio
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone

from feed.caller_checks import CallerChecks
from feed.hub import HUB
from feed.topics import concerns
from forum.access import visible_threads_q
from forum.own_writes import last_write, read_for
from forum.policies import has_right
from parley_site.errors import TokenInvalid, TokenRightMissing
from parley_site.statement_timeout import bounded

# The reads of followers share a few threads and so a few database connections per process, however many
# streams and waits are open.
READS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="parley-feed-read")


def bounded_read(function, *args):
    """function(*args) on a pool thread: bounded by the statement timeout, and with a broken connection
    closed so that the next read opens a new one."""
    try:
        with bounded():
            return function(*args)
    except (OperationalError, InterfaceError):
        connection.close()
        raise


def on_pool(function, *args):
    """function(*args) on the read pool, awaitable: on the primary (what must be current, the caller's check)."""
    return asyncio.get_running_loop().run_in_executor(READS, bounded_read, function, *args)


def read_listing(actor, listing, after, limit, woken_at):
    """The listing's page on a database copy that shows the line's own writes and every write committed
    before `woken_at` (the loop's time, time.monotonic(), a note came), §19; else on the primary."""
    return read_for(actor, partial(listing.read, actor, after, limit), woken_at)


class Subscription:
    """A follower's ear: notes that may concern its list wake it, from whichever thread hears them."""

    def __init__(self, loop, topic):
        self.loop, self.woken, self.noted_at = loop, asyncio.Event(), loop.time()
        self._waiter = HUB.subscribe(concerns(topic), lambda: loop.call_soon_threadsafe(self._note))

    def _note(self):
        self.noted_at = self.loop.time()
        self.woken.set()

    async def woken_within(self, seconds):
        """Whether a note came within `seconds` (or had come already); the next wait starts afresh."""
        try:
            await asyncio.wait_for(self.woken.wait(), max(seconds, 0))
        except TimeoutError:
            return False
        self.woken.clear()
        return True

    def cancel(self):
        HUB.unsubscribe(self._waiter)


class SharedReads:
    """Followers of one process that read the same list from the same place, and may see the same threads,
    read it once: one note can wake hundreds of them, which would otherwise all ask the database the same
    question."""

    def __init__(self):
        # (listing key, what the caller may see, page size, position) -> (when the read was sent, its future)
        self._flights = {}

    async def fetch(self, actor, listing, after, limit, fresh_since):
        """The page after `after`, from a read sent no earlier than `fresh_since` (a read sent before a note
        arrived may not see the write the note announces), on a database copy that shows every write
        committed before it (§19: a woken follower never misses what woke it, and a page after a full one
        never stops short of what the primary has already shown). Followers with different own writes to see
        share no read."""
        loop = asyncio.get_running_loop()
        # Equal predicates (forum.access) select the same threads, so their callers may share a read.
        key = (listing.key, visible_threads_q(actor), limit, after, last_write(actor))
        flight = self._flights.get(key)
        if flight is None or flight[0] < fresh_since:
            sent = loop.time()  # what it shows covers every follower that shares it
            flight = (sent, on_pool(read_listing, actor, listing, after, limit, sent))
            self._flights[key] = flight
            flight[1].add_done_callback(lambda _: self._flights.get(key) is flight and self._flights.pop(key))
        return await asyncio.shield(flight[1])  # one follower leaving must not cancel the others' read


SHARED_READS = SharedReads()
CALLER_CHECKS = CallerChecks(on_pool)


def until_checked(actor, seconds):
    """How long a follower may sleep before it checks its caller again: `seconds`, or less when the
    credential it came with stops by time before then (the token's expiry, the end of a rotation's grace),
    so that it ends then and not at its next heartbeat."""
    if actor.valid_until is None:
        return seconds
    return min(seconds, (actor.valid_until - timezone.now()).total_seconds())


async def caller_now(actor, needs):
    """(the caller as the database has it now, None) while it may still read what it follows, else
    (None, the refusal a new request would get)."""
    current = await CALLER_CHECKS.current(actor)
    if current is None:
        return None, TokenInvalid("the token was revoked (or the session ended) while the call was open")
    missing = [right for right in needs if not has_right(current, right)]
    if missing:
        return None, TokenRightMissing(missing[0])
    return current, None
