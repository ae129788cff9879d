"""§20 "No existence leak", as a property: whatever rooms, memberships, appointments, moves and posts come
to pass, every read path of every line shows exactly the threads an oracle says it may see, and what it may
not see answers as a missing object would. The oracle is a plain Python reading of §20's rules over the
rows as stored; the server's condition is SQL (rooms.selectors.sight), so the two are written apart."""
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forum.actors import Actor
from forum.dispatch import OPERATIONS, call
from forum.envelope import clean_envelope
from forum.services import message_post
from forum.models import Message, Thread
from parley_site.errors import NotFound
from rooms.models import Appointment, Membership, Room
from rooms.services import member_add, member_remove, room_create, room_leave, thread_move

LINES = ("alice", "bob", "carol")
ROOMS = ("general", "pub", "priv", "diary", "kid")
ACTIONS = st.one_of(
    st.tuples(st.just("open"), st.sampled_from(LINES), st.sampled_from(ROOMS)),
    st.tuples(st.just("add"), st.sampled_from(LINES), st.sampled_from(ROOMS[2:])),
    st.tuples(st.just("remove"), st.sampled_from(LINES), st.sampled_from(ROOMS[2:])),
    st.tuples(st.just("leave"), st.sampled_from(LINES), st.sampled_from(ROOMS)),
    st.tuples(st.just("move"), st.integers(0, 5), st.sampled_from(ROOMS)),
    st.tuples(st.just("answer"), st.sampled_from(LINES), st.integers(0, 5)),
)


def set_up_rooms(operator):
    room_create(operator, {"slug": "pub", "name": "Public"})
    parent = room_create(operator, {"slug": "priv", "name": "Private", "visibility": "private"})
    room_create(operator, {"slug": "diary", "name": "Diary", "visibility": "private", "history": "joined"})
    room_create(operator, {"slug": "kid", "name": "Kid", "visibility": "private", "parent": f"rm_{parent.pk}"})


def may_see(identity, thread, rooms):
    """§20 "Who sees what", read plainly."""
    room = rooms[thread.room_number]
    if room.visibility == "public":
        return True
    moderated = {appointment.room_id for appointment in Appointment.objects.filter(identity=identity,
                                                                                   role="moderator")}
    if room.pk in moderated or room.parent_id in moderated:
        return True
    membership = Membership.objects.filter(identity=identity, room=room, left_at__isnull=True).first()
    if membership is None:
        return False
    return room.history == "shared" or membership.started_at <= thread.created_at


def run(actor, operation, **arguments):
    """(status, body) of one operation as every door runs it; a refusal as (its status, its reason)."""
    try:
        return call(OPERATIONS[operation], actor, arguments)
    except NotFound as refusal:
        return refusal.status, refusal.reason


def apply(step, actors, operator, threads):
    kind = step[0]
    try:
        if kind == "open":
            threads.append(message_post(actors[step[1]], clean_envelope(
                {"kind": "ask", "body": "Q", "room": step[2]}))[1].pk)
        elif kind == "add":
            member_add(operator, step[2], actors[step[1]].identity)
        elif kind == "remove":
            member_remove(operator, step[2], actors[step[1]].identity)
        elif kind == "leave":
            room_leave(actors[step[1]], step[2])
        elif kind == "move" and threads:
            thread_move(operator, threads[step[1] % len(threads)], step[2])
        elif kind == "answer" and threads:
            message_post(actors[step[1]], clean_envelope(
                {"kind": "note", "body": "N", "thread": threads[step[2] % len(threads)]}))
    except Exception as refusal:  # noqa: BLE001  a refused step (not_found, self_reply, ...) changes nothing
        if not hasattr(refusal, "reason"):
            raise


def check_every_read_path(actor, rooms):
    threads = list(Thread.objects.order_by("id"))
    seen = [thread.pk for thread in threads if may_see(actor.identity, thread, rooms)]
    listed = [int(item["id"][3:]) for item in run(actor, "list_threads", limit=200)[1]["items"]]
    assert listed == seen
    searched = [int(item["id"][3:]) for item in run(actor, "list_threads", q="Q", limit=200)[1]["items"]]
    assert set(searched) <= set(seen)
    events = {int(item["thread"][3:]) for item in run(actor, "list_events", limit=200)[1]["items"]}
    assert events == set(seen)
    inbox = {int(item["id"][3:]) for item in run(actor, "inbox", limit=200)[1]["items"]}
    assert inbox <= set(seen)
    visible_rooms = {int(item["id"][3:]) for item in run(actor, "list_rooms", limit=200)[1]["items"]}
    for room in rooms.values():
        in_room = [pk for pk in seen if Thread.objects.get(pk=pk).room_number == room.pk]
        if room.pk in visible_rooms:
            assert [int(item["id"][3:]) for item in
                    run(actor, "list_threads", room=f"rm_{room.pk}", limit=200)[1]["items"]] == in_room
        else:
            assert run(actor, "list_threads", room=f"rm_{room.pk}") == (404, "not_found")
            assert run(actor, "read_room", room=f"rm_{room.pk}") == (404, "not_found")
    for thread in threads:
        first = Message.objects.filter(thread=thread).order_by("id").first()
        if thread.pk in seen:
            assert run(actor, "read_thread", thread=thread.pk)[0] == 200
            assert run(actor, "read_message", message=first.pk)[0] == 200
        else:
            assert run(actor, "read_thread", thread=thread.pk) == (404, "not_found")
            assert run(actor, "read_message", message=first.pk) == (404, "not_found")
            assert run(actor, "list_events", thread=thread.pk) == (404, "not_found")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(ACTIONS, min_size=1, max_size=12))
def test_no_read_path_shows_a_line_what_it_may_not_see(steps, make_token, operator):
    with transaction.atomic():
        actors = {handle: Actor.for_token(make_token(handle)) for handle in LINES}
        set_up_rooms(operator)
        threads = []
        for step in steps:
            apply(step, actors, operator, threads)
        rooms = {room.pk: room for room in Room.objects.all()}
        for actor in actors.values():
            check_every_read_path(actor, rooms)
        transaction.set_rollback(True)
