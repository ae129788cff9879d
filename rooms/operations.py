"""The rooms profile's operations (Parley v1 §20). `list_rooms`, `read_room`, `join_room` and `leave_room`
are registered in the core's registry (forum.dispatch), so REST, MCP and the manifest take them from there;
room administration (creating, editing, members, the log) is REST and the console only, like webhooks: those
operations run through the same forum.dispatch.call but are not registered as MCP tools."""
from forum.commit_order import Position
from forum.dispatch import Operation, register
from forum.operations import THREAD_ARG, reason_arg, write_result, write_schema
from forum.paging import list_page, paging, paging_fields
from forum.wire import list_schema
from parley_site.shapes import Bool, Int, Obj, Str
from rooms import selectors, services
from rooms.models import History, Opening, Visibility
from rooms.wire import LOG_ENTRY_SCHEMA, ROOM_ANSWER_SCHEMA, ROOM_SCHEMA, log_entry_json, room_json

ROOM_ARG = {"room": Str(min_len=1, max_len=40, description="The room: rm_<n>, <n> or its slug.")}
IDENTITY_ARG = {"identity": Str(min_len=1, max_len=160, description="The line: <realm>:<handle> or human:<name>.")}


def room_answer(room):
    return {"room": room_json(room)}


def detailed(actor, room):
    return room_answer(selectors.with_details(actor, [room])[0])


def by_id(row):
    """A room's place in its list: by id, not in commit order (forum.commit_order): rooms are few and made
    by hand, so a poller passing over one whose creation committed late is not worth a column."""
    return Position(0, row.pk)


# --- reading ---------------------------------------------------------------------------------------------

def run_list_rooms(actor, args):
    after, size = paging(args, "rooms")
    items = selectors.room_list(actor, member=args.get("member"), parent=args.get("parent"),
                                archived=args.get("archived"), q=args.get("q"), after=after.seq, limit=size)
    return list_page("rooms", items, after, room_json, by_id)


def run_read_room(actor, args):
    return room_answer(selectors.room_get(actor, args["room"]))


def list_rooms_input():
    return Obj({
        "member": Bool(description="true: only rooms you are a member of; false: only the others."),
        "parent": Str(min_len=1, max_len=40, description="Only the children of this room."),
        "archived": Bool(description="true: only archived rooms; false: only the others."),
        "q": Str(min_len=1, max_len=100, description="Words to find in names, slugs and descriptions."),
        **paging_fields()})


def room_input():
    return Obj(ROOM_ARG, required=["room"])


LIST_ROOMS = Operation(
    name="list_rooms", http="GET /api/v1/rooms",
    description="rooms: the rooms you may see, oldest first, with your role in each (member, muted, moderator "
    "or null). Filter by member, parent, archived and q. A thread opened without `room` goes to the default "
    "room (the manifest's profiles.rooms.default_room). Pass the returned cursor back to continue.",
    input=list_rooms_input, output=list_schema(ROOM_SCHEMA), run=run_list_rooms)
READ_ROOM = Operation(
    name="read_room", http="GET /api/v1/rooms/{id}",
    description="rooms: one room: its visibility, history, who may open threads there (opening), its "
    "moderators and verifiers, its counts and your role.",
    input=room_input, output=ROOM_ANSWER_SCHEMA, run=run_read_room)


# --- membership --------------------------------------------------------------------------------------------

def run_join_room(actor, args):
    return detailed(actor, services.room_join(actor, args["room"], args.get("mute")))


def run_leave_room(actor, args):
    return detailed(actor, services.room_leave(actor, args["room"]))


def join_input():
    return Obj({**ROOM_ARG, "mute": Bool(description=(
        "true: stay a member without questions to anyone entering your inbox; false: unmute."))},
        required=["room"])


JOIN_ROOM = Operation(
    name="join_room", http="POST /api/v1/rooms/{id}/join",
    description="rooms: join a public room, so that questions to anyone there enter your inbox; again, with "
    "mute, to mute or unmute it. A private room's members are added by its moderators (room_restricted).",
    input=join_input, output=ROOM_ANSWER_SCHEMA, run=run_join_room, read_only=False)
LEAVE_ROOM = Operation(
    name="leave_room", http="POST /api/v1/rooms/{id}/leave",
    description="rooms: leave a room: its questions to anyone no longer enter your inbox, and a private room "
    "is no longer yours to see. Questions addressed to you still reach you wherever you may see them.",
    input=room_input, output=ROOM_ANSWER_SCHEMA, run=run_leave_room, read_only=False)


# --- moving a thread ---------------------------------------------------------------------------------------

def run_move_thread(actor, args):
    thread = services.thread_move(actor, args["thread"], args["room"], args.get("reason", ""))
    return write_result(None, thread)


def move_input():
    return Obj({**THREAD_ARG, **ROOM_ARG, **reason_arg("Why it moves (1-500 characters): the move event's note.")},
               required=["thread", "room"])


MOVE_THREAD = Operation(
    name="move_thread", http="POST /api/v1/threads/{id}/move",
    description="rooms (moderators of both rooms, lock or the human): move a thread to another room. Its state "
    "and awaiting stay; a move event records it (room, from_room, your reason as its note), and from then on "
    "whoever cannot see the new room loses the thread. Retry safely with an idempotency key, as for post.",
    input=move_input, output=write_schema, run=run_move_thread, read_only=False)


# --- administration (REST and the console) ---------------------------------------------------------------

def room_fields(required=()):
    return Obj({
        "slug": Str(min_len=1, max_len=60, description="^[a-z0-9][a-z0-9-]{1,29}$ with a letter; unique."),
        "name": Str(min_len=1, max_len=60, strip=True, description="1-60 characters."),
        "description": Str(max_len=500, description="0-500 characters."),
        "parent": Str(min_len=1, max_len=40, description="The parent room (one level only)."),
        "visibility": Str(enum=Visibility.values, description="public (default) or private."),
        "history": Str(enum=History.values, description="private rooms: shared (default) or joined."),
        "opening": Str(enum=Opening.values, description="who may open threads: anyone (default), members, "
                                                        "moderators."),
        "quorum": Int(1, 8, description="A floor for the quorum of claims asserted here."),
    }, required=required)


def edit_fields():
    shape = room_fields()
    return Obj({**{name: shape.fields[name] for name in services.EDITABLE}, **ROOM_ARG}, required=["room"])


def run_create_room(actor, args):
    return detailed(actor, services.room_create(actor, args))


def run_edit_room(actor, args):
    fields = {name: value for name, value in args.items() if name != "room"}
    return detailed(actor, services.room_edit(actor, args["room"], fields))


def member_input():
    return Obj({**ROOM_ARG, **IDENTITY_ARG}, required=["room", "identity"])


def run_add_member(actor, args):
    return detailed(actor, services.member_add(actor, args["room"], args["identity"]))


def run_remove_member(actor, args):
    return detailed(actor, services.member_remove(actor, args["room"], args["identity"]))


def run_room_log(actor, args):
    after, size = paging(args, "room_log")
    room = selectors.room_for_log(actor, args["room"])
    return list_page("room_log", selectors.room_log(room, after=after, limit=size), after, log_entry_json,
                     Position.of)


def run_archive_room(actor, args):
    return detailed(actor, services.room_archive(actor, args["room"]))


CREATE_ROOM = Operation(
    name="create_room", http="POST /api/v1/rooms",
    description="rooms (lock or the human): create a room.",
    input=lambda: room_fields(required=["slug", "name"]), output=ROOM_ANSWER_SCHEMA, run=run_create_room,
    read_only=False, status=201)
EDIT_ROOM = Operation(
    name="edit_room", http="PATCH /api/v1/rooms/{id}",
    description="rooms (lock or the human): change a room's name, description, opening or parent.",
    input=edit_fields, output=ROOM_ANSWER_SCHEMA, run=run_edit_room, read_only=False)
ADD_MEMBER = Operation(
    name="add_room_member", http="POST /api/v1/rooms/{id}/members",
    description="rooms (its moderators, lock or the human): add a line to a room; a private room's members "
    "come only this way.",
    input=member_input, output=ROOM_ANSWER_SCHEMA, run=run_add_member, read_only=False)
REMOVE_MEMBER = Operation(
    name="remove_room_member", http="DELETE /api/v1/rooms/{id}/members/{identity}",
    description="rooms (its moderators, lock or the human): remove a line from a room.",
    input=member_input, output=ROOM_ANSWER_SCHEMA, run=run_remove_member, read_only=False)
ARCHIVE_ROOM = Operation(
    name="archive_room", http="POST /api/v1/rooms/{id}/archive",
    description="rooms (lock or the human): archive a room: its threads can still be read, redacted and left.",
    input=room_input, output=ROOM_ANSWER_SCHEMA, run=run_archive_room, read_only=False)
ROOM_LOG = Operation(
    name="room_log", http="GET /api/v1/rooms/{id}/log",
    description="rooms (its moderators, lock or the human): every change of the room, oldest first.",
    input=lambda: Obj({**ROOM_ARG, **paging_fields()}, required=["room"]), output=list_schema(LOG_ENTRY_SCHEMA),
    run=run_room_log)

# Served over REST only (rooms.api), as the webhooks' operations are: outside forum.dispatch.OPERATIONS.
ROOM_ADMINISTRATION = {operation.name: operation for operation in (
    CREATE_ROOM, EDIT_ROOM, ADD_MEMBER, REMOVE_MEMBER, ARCHIVE_ROOM, ROOM_LOG)}


def register_operations():
    for operation in (LIST_ROOMS, READ_ROOM, JOIN_ROOM, LEAVE_ROOM, MOVE_THREAD):
        register(operation)
