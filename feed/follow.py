"""What every follower of a list shares, be it an open event stream (feed.stream) or a held call
(feed.wait): the wake-up by notes, the read pool, reads shared between followers, and the re-check of the
caller before each read. All of it runs on the server's event loop; only reads go to threads."""
import asyncio
from concurrent.futures import ThreadPoolExecutor

from django.db import InterfaceError, OperationalError, connection

from feed.caller_checks import CallerChecks
from feed.hub import HUB
from feed.topics import concerns
from forum.access import visible_threads_q
from forum.policies import has_right
from parley_site.errors import TokenInvalid, TokenRightMissing
from parley_site.statement_timeout import bounded, read_transaction

# The reads of followers share a few threads and so a few database connections per process, however many
# streams and waits are open.
READS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="parley-feed-read")


def bounded_read(function, *args):
    """function(*args) on a pool thread: bounded by the statement timeout, and with a broken connection
    closed so that the next read opens a new one."""
    try:
        with bounded(), read_transaction():
            return function(*args)
    except (OperationalError, InterfaceError):
        connection.close()
        raise


def on_pool(function, *args):
    """function(*args) on the read pool, awaitable."""
    return asyncio.get_running_loop().run_in_executor(READS, bounded_read, function, *args)


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
        arrived may not see the write the note announces)."""
        loop = asyncio.get_running_loop()
        # Equal predicates (forum.access) select the same threads, so their callers may share a read.
        key = (listing.key, visible_threads_q(actor), limit, after)
        flight = self._flights.get(key)
        if flight is None or flight[0] < fresh_since:
            flight = (loop.time(), on_pool(listing.read, actor, after, limit))
            self._flights[key] = flight
            flight[1].add_done_callback(lambda _: self._flights.get(key) is flight and self._flights.pop(key))
        return await asyncio.shield(flight[1])  # one follower leaving must not cancel the others' read


SHARED_READS = SharedReads()
CALLER_CHECKS = CallerChecks(on_pool)


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
