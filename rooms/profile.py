"""Profile `rooms` (Parley v1 §20) as the core sees it (forum.profiles): the `room` field of an opening ask,
the `room=` filter of the lists and the stream, where a new thread goes, what an archived room refuses, who
sees which thread and whose inbox a question to anyone reaches, and its manifest section."""
from forum.profiles import Profile
from parley_site.shapes import Str
from rooms import selectors, services
from rooms.wire import MANIFEST_SCHEMA, manifest_section

ROOM_FIELD = {"room": Str(min_len=1, max_len=40, description=(
    "rooms, on an ask that opens a thread only: the room to open it in (rm_<n>, <n> or its slug); without it "
    "the default room."))}
ROOM_FILTER = {"room": Str(min_len=1, max_len=1000, description=(
    "rooms: only threads now in this room, or in one of a comma list of at most room_filter_max rooms "
    "(rm_<n>, <n> or slug)."))}
ROOM_LIST = {"type": "array", "items": {"type": "string", "pattern": "^rm_[0-9]+$"}}
WHOAMI_PROPERTIES = {
    "moderates": {**ROOM_LIST, "description": "rooms: the rooms you are appointed to moderate"},
    "verifies": {**ROOM_LIST, "description": "rooms: the rooms whose claims you are appointed to verify"},
}
FILTERED = ("list_threads", "inbox", "list_events", "list_claims", "stream")


def rooms_profile():
    return Profile(name="rooms", manifest=manifest_section, manifest_schema=MANIFEST_SCHEMA,
                   arguments={name: ROOM_FILTER for name in FILTERED}, opening_fields=ROOM_FIELD,
                   sight=selectors.sight, reach=selectors.reach, narrow=selectors.narrow, powers=selectors.powers,
                   place=services.place, guard=services.guard, whoami=selectors.whoami, floor=selectors.floor,
                   escalated=selectors.stuck, places=selectors.places,
                   whoami_properties=WHOAMI_PROPERTIES)
