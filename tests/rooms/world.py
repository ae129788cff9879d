"""The worlds of the no-leak property tests (§20 "No existence leak"): what Hypothesis generates (rooms,
memberships, joins, leaves, mutes, appointments, moves, archives, and posts by several lines), how a step is
applied through the services every door runs, and the oracle: a plain Python reading of §20's "Who sees
what" over the rows as stored, written apart from the server's SQL condition (rooms.selectors.sight).

A refusal is compared whole: an invisible object must answer exactly what a missing one answers (status,
reason, message and detail), its id written in place of the missing one's."""
import json
from dataclasses import dataclass, field

from hypothesis import strategies as st

from forum.actors import Actor
from forum.dispatch import OPERATIONS, call
from forum.envelope import clean_envelope
from forum.models import Message, Thread
from forum.services import message_post
from parley_site.errors import ParleyError

LINES = ("alice", "bob", "carol")
ROOMS = ("general", "pub", "priv", "diary", "kid")
PRIVATE = ROOMS[2:]
MISSING = 987654  # a number no object of a test's world has
PAGE = 2  # the page size the pages are read with, so that paging is exercised

STEPS = st.one_of(
    st.tuples(st.just("open"), st.sampled_from(LINES), st.sampled_from(ROOMS)),
    st.tuples(st.just("answer"), st.sampled_from(LINES), st.integers(0, 7)),
    st.tuples(st.just("assert"), st.sampled_from(LINES), st.integers(0, 7)),
    st.tuples(st.just("add"), st.sampled_from(LINES), st.sampled_from(PRIVATE)),
    st.tuples(st.just("remove"), st.sampled_from(LINES), st.sampled_from(PRIVATE)),
    st.tuples(st.just("join"), st.sampled_from(LINES), st.sampled_from(ROOMS), st.booleans()),
    st.tuples(st.just("leave"), st.sampled_from(LINES), st.sampled_from(ROOMS)),
    st.tuples(st.just("appoint"), st.sampled_from(LINES), st.sampled_from(PRIVATE)),
    st.tuples(st.just("dismiss"), st.sampled_from(LINES), st.sampled_from(PRIVATE)),
    st.tuples(st.just("move"), st.integers(0, 7), st.sampled_from(ROOMS)),
    st.tuples(st.just("archive"), st.sampled_from(ROOMS[1:])),
)
WORLDS = st.lists(STEPS, min_size=1, max_size=14)


def set_up_rooms(operator):
    """A public room, a private one with a private child, and a private one of `history: joined`."""
    from rooms.services import room_create

    room_create(operator, {"slug": "pub", "name": "Public"})
    parent = room_create(operator, {"slug": "priv", "name": "Private", "visibility": "private"})
    room_create(operator, {"slug": "diary", "name": "Diary", "visibility": "private", "history": "joined"})
    room_create(operator, {"slug": "kid", "name": "Kid", "visibility": "private", "parent": f"rm_{parent.pk}"})


@dataclass
class World:
    """The lines' actors, the operator, the threads opened (numbers, in order) and the claims asserted."""

    actors: dict
    operator: Actor
    threads: list = field(default_factory=list)
    claims: list = field(default_factory=list)

    def thread(self, index):
        return self.threads[index % len(self.threads)] if self.threads else None


def build(make_token, operator, steps):
    """The world the steps make: three lines that read and write, and a lock holder (`mod`), who sees every
    room; each step applied as the doors apply it, a refused one changing nothing."""
    actors = {handle: Actor.for_token(make_token(handle)) for handle in LINES}
    actors["mod"] = Actor.for_token(make_token("mod", ("read", "write", "lock")))
    set_up_rooms(operator)
    world = World(actors, operator)
    for step in steps:
        apply(step, world)
    return world


def apply(step, world):
    from rooms.services import (appointment_add, appointment_remove, member_add, member_remove, room_archive,
                                room_join, room_leave, thread_move)

    kind, actors, operator = step[0], world.actors, world.operator
    try:
        if kind == "open":
            world.threads.append(message_post(actors[step[1]], clean_envelope(
                {"kind": "ask", "body": "Q", "room": step[2]}))[1].pk)
        elif kind == "answer" and world.threads:
            message_post(actors[step[1]], clean_envelope(
                {"kind": "note", "body": "N", "thread": world.thread(step[2])}))
        elif kind == "assert" and world.threads:
            claim = message_post(actors[step[1]], clean_envelope(
                {"kind": "assert", "body": "C", "thread": world.thread(step[2])}))[2]
            world.claims.append(claim.pk)
        elif kind == "add":
            member_add(operator, step[2], actors[step[1]].identity)
        elif kind == "remove":
            member_remove(operator, step[2], actors[step[1]].identity)
        elif kind == "join":
            room_join(actors[step[1]], step[2], mute=step[3])
        elif kind == "leave":
            room_leave(actors[step[1]], step[2])
        elif kind == "appoint":
            appointment_add(operator, step[2], actors[step[1]].identity, "moderator")
        elif kind == "dismiss":
            appointment_remove(operator, step[2], actors[step[1]].identity, "moderator")
        elif kind == "move" and world.threads:
            thread_move(operator, world.thread(step[1]), step[2])
        elif kind == "archive":
            room_archive(operator, step[1])
    except ParleyError:  # a refused step (not_found, self_reply, room_archived, ...) changes nothing
        pass


# --- the oracle -------------------------------------------------------------------------------------------

@dataclass
class Sight:
    """What one line may see, read plainly from the rows: room numbers and thread numbers."""

    rooms: set
    threads: list  # ascending

    def sees_thread(self, number):
        return number in self.threads


def inbox_oracle(actor, sight):
    """§11 with §20's amendment, read plainly: the visible threads awaiting an answer from the line itself,
    or from `anyone` in a room the line is an unmuted member of (the default room without a row: a member),
    but not a question the line asked itself (its unnamed extension)."""
    from forum.models import DEFAULT_ROOM_NUMBER
    from rooms.models import Membership

    rows = {membership.room_id: membership for membership in Membership.objects.filter(identity=actor.identity)}

    def reached(room):
        row = rows.get(room)
        if row is None:
            return room == DEFAULT_ROOM_NUMBER
        return row.left_at is None and not row.muted

    return sorted(thread.pk for thread in Thread.objects.filter(pk__in=sight.threads, awaiting_act="answer")
                  if not (thread.awaiting_by_identity == actor.identity and thread.awaiting_by_extension == "")
                  and (thread.awaiting_from == actor.identity
                       or (thread.awaiting_from == "anyone" and reached(thread.room_number))))


def oracle(actor):
    """§20 "Who sees what", read plainly: a public room every caller with `read`; a private one its current
    members (a `joined` room: the threads opened since the membership began), its moderators and its
    parent's, lock holders and the human."""
    from rooms.models import Appointment, Membership, Room

    rooms = {room.pk: room for room in Room.objects.all()}
    if "lock" in actor.rights:
        return Sight(set(rooms), list(Thread.objects.order_by("id").values_list("pk", flat=True)))
    moderated = set(Appointment.objects.filter(identity=actor.identity, role="moderator")
                    .values_list("room_id", flat=True))
    memberships = {membership.room_id: membership for membership in
                   Membership.objects.filter(identity=actor.identity, left_at__isnull=True)}

    def moderates(room):
        return room.pk in moderated or room.parent_id in moderated

    seen_rooms = {number for number, room in rooms.items()
                  if room.visibility == "public" or moderates(room) or number in memberships}

    def sees(thread):
        room = rooms[thread.room_number]
        if room.pk not in seen_rooms:
            return False
        if room.visibility == "public" or moderates(room) or room.history == "shared":
            return True
        return memberships[room.pk].started_at <= thread.created_at

    return Sight(seen_rooms, [thread.pk for thread in Thread.objects.order_by("id") if sees(thread)])


# --- calling the operations as every door does ------------------------------------------------------------

def answer(actor, operation, **arguments):
    """(status, body) of one operation as every door runs it (forum.dispatch.call), a refusal as its status
    and its whole body."""
    try:
        return call(OPERATIONS[operation], actor, arguments)
    except ParleyError as refusal:
        return refusal.status, refusal.as_body()


MISSING_ANSWERS: dict = {}  # what a missing object answers does not depend on the world: asked once


def as_missing(actor, operation, field_name, ref, missing, **arguments):
    """What `operation` answers when `field_name` names `missing`, an object that never existed, with
    `missing` written as `ref`: what an invisible `ref` must answer, word for word."""
    key = (actor.identity, tuple(sorted(actor.rights)), operation, field_name, missing, tuple(sorted(arguments.items())))
    if key not in MISSING_ANSWERS:
        MISSING_ANSWERS[key] = answer(actor, operation, **{field_name: missing}, **arguments)
    status, body = MISSING_ANSWERS[key]
    assert status == 404, (operation, status, body)
    return status, json.loads(json.dumps(body).replace(json.dumps(missing)[1:-1], json.dumps(ref)[1:-1]))


def assert_answers_as_missing(actor, operation, field_name, ref, missing, **arguments):
    assert answer(actor, operation, **{field_name: ref}, **arguments) == as_missing(
        actor, operation, field_name, ref, missing, **arguments), (actor.identity, operation, ref)


def items(actor, operation, **arguments):
    status, body = answer(actor, operation, limit=200, **arguments)
    assert status == 200, (operation, arguments, body)
    return body["items"]


def paged(actor, operation, **arguments):
    """Every item of the list read PAGE by PAGE along its cursors: what pages show, all of it."""
    found, cursor = [], None
    while True:
        status, body = answer(actor, operation, limit=PAGE, **({"cursor": cursor} if cursor else {}), **arguments)
        assert status == 200, (operation, arguments, body)
        if not body["items"]:
            return found
        assert len(body["items"]) <= PAGE
        found.extend(body["items"])
        cursor = body["cursor"]


def numbers(found, key="id"):
    return [int(item[key].split("_", 1)[1]) for item in found]


def first_messages():
    """thread number -> the number of its first message."""
    return dict(Message.objects.filter(parent__isnull=True).values_list("thread_id", "pk"))
