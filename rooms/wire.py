"""The rooms profile's wire shapes (Parley v1 §20), each declared once (parley_site.records): the room, as
list_rooms, read_room and the room writes answer it, and an entry of the room's log."""
from django.conf import settings

from forum.models import DEFAULT_ROOM_NUMBER
from forum.wire import STRING_LIST, strict
from parley_site.records import Boolean, Field, Integer, Json, Key, ListOf, Record, Text, Time
from rooms.models import History, Opening, Visibility

ROOM = Record({
    "id": Field(Key("rm"), "pk"),
    "slug": Field(Text()),
    "name": Field(Text()),
    "description": Field(Text()),
    "parent": Field(Key("rm"), "parent_id", nullable=True, description="the parent room, or null"),
    "visibility": Field(Text(enum=Visibility.values)),
    "history": Field(Text(enum=History.values), description="joined: members see threads opened since they joined"),
    "opening": Field(Text(enum=Opening.values), description="who may open a thread here"),
    "quorum": Field(Integer(minimum=1, maximum=8), nullable=True,
                    description="the floor for the quorum of claims asserted here, or null"),
    "archived": Field(Boolean(), "is_archived"),
    "created_at": Field(Time()),
    "member_count": Field(Integer()),
    "thread_count": Field(Integer(), description="the threads here that you may see"),
    "moderators": Field(ListOf(Text()), description="identities appointed to moderate it"),
    "verifiers": Field(ListOf(Text()), description="identities appointed to verify its claims"),
    "your_role": Field(Text(enum=["moderator", "member", "muted"]), nullable=True),
}, description="A room (§20).")

LOG_ENTRY = Record({
    "id": Field(Key("log"), "pk"),
    "room": Field(Key("rm"), "room_id"),
    "action": Field(Text(), description="created, edited, archived, unarchived, member_added, member_removed, "
                                        "member_joined, member_left, member_muted, member_unmuted, moderator_added, "
                                        "moderator_removed, verifier_added, verifier_removed, thread_moved_in, "
                                        "thread_moved_out"),
    "actor": Field(Text()),
    "subject": Field(Text(), nullable=True, description="the identity added or removed, or the thread moved"),
    "detail": Field(Json({"type": "object"})),
    "at": Field(Time()),
})

room_json, log_entry_json = ROOM.render, LOG_ENTRY.render
ROOM_SCHEMA, LOG_ENTRY_SCHEMA = ROOM.schema(), LOG_ENTRY.schema()
ROOM_ANSWER_SCHEMA = strict({"room": ROOM_SCHEMA})


def default_room():
    return {"id": f"rm_{DEFAULT_ROOM_NUMBER}", "slug": settings.PARLEY_ROOMS["default_slug"]}


def rooms_limits():
    return dict(settings.PARLEY_ROOMS["limits"])


def manifest_section():
    return {"default_room": default_room(), "visibility": list(Visibility.values), "history": list(History.values),
            "opening": list(Opening.values), "limits": rooms_limits()}


MANIFEST_SCHEMA = strict({
    "default_room": strict({"id": {"type": "string"}, "slug": {"type": "string"}},
                           description="where a thread opened without `room` goes"),
    "visibility": STRING_LIST,
    "history": STRING_LIST,
    "opening": STRING_LIST,
    "limits": strict({name: {"type": "integer"} for name in settings.PARLEY_ROOMS["limits"]}),
}, description="Profile rooms: where a thread lives, who sees it, whose turn it is there (§20).")
