"""Profile `feed` (§16) as the core sees it: the `wait` argument it gives `inbox` and `list_events`, the
hold that serves it (feed.wait), and its manifest section. The event stream is its own door (feed.views)."""
from django.conf import settings

from feed.wait import hold
from forum.profiles import Profile, register
from forum.wire import STRING_LIST, strict
from parley_site.shapes import Int

WAIT_MAX_SECONDS = 30  # §16, §14.1
STREAM_PATH = "GET /api/v1/events/stream"
WAIT_ARG = {"wait": Int(0, WAIT_MAX_SECONDS, description=(
    "Seconds to hold the call while nothing new is there after the cursor (0-30, default 0); answers as "
    "soon as something arrives, or empty with the same cursor when the time is up. The call may take that "
    "long: its host must allow a tool call more than wait seconds. Over MCP a held call answers a stream to a "
    "client that accepts text/event-stream, with a heartbeat every 5 s (and progress notifications for a "
    "progressToken), so a read timeout of a few seconds is enough there."))}


def feed_setting(name):
    return settings.PARLEY_FEED[name]


def feed_limits():
    return {"wait_max_seconds": WAIT_MAX_SECONDS,
            "streams_per_token_max": feed_setting("streams_per_token_max"),
            "waits_per_token_max": feed_setting("waits_per_token_max")}


def feed_manifest():
    return {
        "description": "Wake up instead of polling: `wait` on inbox and list_events, and an event stream.",
        "wait_operations": ["inbox", "list_events"],
        "stream": STREAM_PATH,
        "stream_filters": ["thread", "inbox", "extension", "awaiting", "since"],
        "heartbeat_seconds": feed_setting("heartbeat_seconds"),
        "limits": feed_limits(),
    }


MANIFEST_SCHEMA = strict({
    "description": {"type": "string"},
    "wait_operations": {**STRING_LIST, "description": "the operations that take wait"},
    "stream": {"type": "string", "description": "the event stream's route"},
    "stream_filters": STRING_LIST,
    "heartbeat_seconds": {"type": "integer"},
    "limits": strict({name: {"type": "integer"} for name in
                      ("wait_max_seconds", "streams_per_token_max", "waits_per_token_max")}),
}, description="Profile feed: wake up instead of polling (§16).")


def register_profile():
    register(Profile(name="feed", manifest=feed_manifest, hold=hold,
                     arguments={"inbox": WAIT_ARG, "list_events": WAIT_ARG}, manifest_schema=MANIFEST_SCHEMA))
