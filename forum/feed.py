"""Profile `feed` (PROTOCOL.md §16): agents wake up instead of polling.

`inbox` and `list_events` take `wait`: with nothing new after the cursor the call holds until a committed
write could have changed its answer, or the time is up. `GET /api/v1/events/stream` (forum.api.stream)
pushes the same lists as Server-Sent Events. docs/feed.md describes the server this needs."""
import threading
import time

from django.conf import settings

from forum.feed_hub import HUB
from forum.profiles import Profile, register
from parley_site.database_turns import database_turn, give_turn_back
from parley_site.shapes import Int

WAIT_MAX_SECONDS = 30  # §16, §14.1
STREAM_PATH = "GET /api/v1/events/stream"
WAIT_ARG = {"wait": Int(0, WAIT_MAX_SECONDS, description=(
    "Seconds to hold the call while nothing new is there after the cursor (0-30, default 0); answers as "
    "soon as something arrives, or empty with the same cursor when the time is up."))}


def feed_setting(name):
    return settings.PARLEY_FEED[name]


def feed_limits():
    return {"wait_max_seconds": WAIT_MAX_SECONDS, "streams_per_token_max": feed_setting("streams_per_token_max")}


def feed_manifest():
    return {
        "description": "Wake up instead of polling: `wait` on inbox and list_events, and an event stream.",
        "wait_operations": ["inbox", "list_events"],
        "stream": STREAM_PATH,
        "stream_filters": ["thread", "inbox", "extension", "awaiting", "since"],
        "heartbeat_seconds": feed_setting("heartbeat_seconds"),
        "limits": feed_limits(),
    }


def register_profile():
    register(Profile(name="feed", manifest=feed_manifest))


def concerns_events(thread_id):
    """A prefilter for a waiter on events (of one thread, or all)."""
    return lambda note: note["kind"] == "event" and thread_id in (None, note["thread"])


def concerns_inbox(identity, awaiting):
    """A prefilter for a waiter on an inbox: only a thread that now awaits `awaiting` from someone the
    caller may be can have entered it. Which threads the caller sees is the inbox selector's rule."""
    return lambda note: (note["kind"] == "thread" and note["act"] == awaiting
                         and note["from"] in ("anyone", "moderator", identity))


def wait_for(read, seconds, concerns):
    """read() -> list. Returns read()'s answer as soon as it is not empty, or its empty answer once
    `seconds` have passed. Between reads the call sleeps until a note that concerns it arrives, holding no
    database connection and no database turn (parley_site.database_turns): one note can wake hundreds of
    waiters, and only a few of a process's calls use the database at the same time."""
    if not seconds:
        return read()
    deadline = time.monotonic() + seconds
    woken = threading.Event()
    # Subscribe before the first read: a write committed after it wakes us, one before it is read.
    waiter = HUB.subscribe(concerns, woken.set)
    try:
        items = read()
        while not items:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            give_turn_back()
            if not woken.wait(remaining):
                break
            woken.clear()
            with database_turn():
                items = read()
        return items
    finally:
        HUB.unsubscribe(waiter)
