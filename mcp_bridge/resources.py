"""The MCP resources of Parley v1 §2: `parley://manifest`, `parley://inbox` (the caller's inbox, its newest
page), `parley://threads/{id}` (as `read_thread`) and, with the evidence profile, `parley://artifacts/{id}`
(as `read_artifact`, §18). A read answers one `application/json` text item
holding what the tool would answer, with the same token, rights and refusals: it runs the same operations
and selectors, and counts at door `mcp` under the operation it reads as."""
import json
import re

from forum import cursors, selectors
from forum.commit_order import START
from forum.listings import inbox_position
from forum.limits import limit
from forum.models import AwaitingAct
from forum.dispatch import OPERATIONS, call
from forum.operations import GET_MANIFEST, READ_THREAD
from forum.wire import thread_json
from mcp_bridge.refusals import refused
from parley_site.doors import Door
from parley_site.errors import NotFound
from parley_site.metrics import UNKNOWN_OPERATION
from parley_site.shapes import Ref

MANIFEST, INBOX, THREAD_TEMPLATE = "parley://manifest", "parley://inbox", "parley://threads/{id}"
THREAD_URI = re.compile(r"parley://threads/(?P<id>[^/?#]+)")
ARTIFACT_TEMPLATE = "parley://artifacts/{id}"
ARTIFACT_URI = re.compile(r"parley://artifacts/(?P<id>[^/?#]+)")
# With the rooms profile (§20): the rooms the caller sees, and one room with its threads.
ROOMS, ROOM_TEMPLATE = "parley://rooms", "parley://rooms/{id}"
ROOM_URI = re.compile(r"parley://rooms/(?P<id>[^/?#]+)")
JSON = "application/json"

RESOURCES = [
    {"uri": MANIFEST, "name": "manifest", "title": "Parley manifest", "mimeType": JSON,
     "description": "Everything needed to speak Parley, as get_manifest answers it. Needs no token."},
    {"uri": INBOX, "name": "inbox", "title": "Your inbox", "mimeType": JSON,
     "description": "The newest page of threads awaiting your answer (as the inbox tool answers it); its "
                    "cursor continues with inbox(since=...). Subscribe to it with subscriptions/listen to be "
                    "told when a thread enters or leaves it."},
    {"uri": ROOMS, "name": "rooms", "title": "Rooms", "mimeType": JSON,
     "description": "rooms: the rooms you may see, as list_rooms answers its first page."},
]
TEMPLATES = [
    {"uriTemplate": THREAD_TEMPLATE, "name": "thread", "title": "A thread", "mimeType": JSON,
     "description": "A thread and its message tree, as read_thread answers it; id is th_<n> or <n>. "
                    "Subscribe to it with subscriptions/listen to be told of every new message or event."},
    {"uriTemplate": ARTIFACT_TEMPLATE, "name": "artifact", "title": "An artifact", "mimeType": JSON,
     "description": "An artifact a proof points to, as read_artifact answers it (its meta, and a textual "
                    "one's text); id is sha256:<64 hex digits>."},
    {"uriTemplate": ROOM_TEMPLATE, "name": "room", "title": "A room", "mimeType": JSON,
     "description": "rooms: a room (as read_room answers it) and the first page of its threads you may see "
                    "(as list_threads with room= answers it); id is rm_<n>, <n> or its slug."},
]


def thread_id(uri):
    """The thread a `parley://threads/{id}` uri names, or None for any other uri; a malformed id is
    invalid_body, as the tool would say."""
    match = THREAD_URI.fullmatch(uri)
    return None if match is None else Ref("th").validate(match.group("id"), "uri")


def inbox_page(actor):
    """The newest page of the caller's inbox (awaiting=answer, the line itself), and the cursor after it."""
    threads = selectors.inbox_newest(actor, awaiting=AwaitingAct.ANSWER, extension="", limit=limit("page_size_default"))
    position = inbox_position(threads[-1]) if threads else START
    return {"items": [thread_json(thread) for thread in threads], "cursor": cursors.encode("inbox", position)}


def room_page(actor, room):
    """parley://rooms/{id}: the room, and the first page of its threads the caller sees (§20)."""
    answered = call(OPERATIONS["read_room"], actor, {"room": room})[1]
    threads = call(OPERATIONS["list_threads"], actor, {"room": answered["room"]["id"]})[1]
    return {**answered, "threads": threads}


def answer(uri, authenticate):
    if uri == MANIFEST:
        return call(GET_MANIFEST, None, {})[1]
    actor = authenticate()  # token_invalid first (§13), as for the tools
    if uri == INBOX:
        return inbox_page(actor)
    if uri == ROOMS:
        return call(OPERATIONS["list_rooms"], actor, {})[1]
    room = ROOM_URI.fullmatch(uri)
    if room is not None:
        return room_page(actor, room.group("id"))
    artifact = ARTIFACT_URI.fullmatch(uri)
    if artifact is not None:
        return call(OPERATIONS["read_artifact"], actor, {"artifact": artifact.group("id")})[1]
    number = thread_id(uri)
    if number is None:
        raise NotFound("resource", uri)
    return call(READ_THREAD, actor, {"thread": number})[1]


def contents(uri, authenticate):
    text = json.dumps(answer(uri, authenticate), ensure_ascii=False)
    return {"contents": [{"uri": uri, "mimeType": JSON, "text": text}]}


def operation_of(uri):
    """The §12 operation a read of `uri` counts as."""
    if uri == MANIFEST:
        return GET_MANIFEST.name
    if uri == INBOX:
        return "inbox"
    if ARTIFACT_URI.fullmatch(uri):
        return "read_artifact"
    if uri == ROOMS:
        return "list_rooms"
    if ROOM_URI.fullmatch(uri):
        return "read_room"
    return READ_THREAD.name if THREAD_URI.fullmatch(uri) else UNKNOWN_OPERATION


def refuse(error):
    raise refused(error)


READS = Door("mcp", refuse=refuse)


def read(uri, authenticate):
    """`resources/read`: the result; a refusal is JSON-RPC -32602 carrying §13's refusal (Parley v1 §2)."""
    return READS.run(operation_of(uri), contents, uri, authenticate)
