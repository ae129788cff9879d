"""§20 "No existence leak", as a property, on the operations (every door runs them through
forum.dispatch.call): whatever rooms, memberships, appointments, moves, archives and posts by several lines
come to pass, every read of every line shows exactly what the oracle (tests/rooms/world.py) says it may
see, in every list with and without `room=` and `q=`, page by page and in every count, and what it may not
see answers exactly as a missing object does. The followers (held calls, the stream, webhooks, MCP
resources and notifications) and the attestation export are in test_no_leaks_followers.py."""
from django.db import transaction
from hypothesis import HealthCheck, given, settings

from dialectic.models import Claim
from forum.models import Message, Thread
from rooms.models import Room
from tests.rooms.world import (MISSING, WORLDS, as_missing, assert_answers_as_missing, answer, build, inbox_oracle,
                               items, numbers, oracle, paged)

EXAMPLES = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def check_threads(actor, sight):
    """list_threads, with and without q=, whole and page by page; read_thread and list_events of each thread;
    read_message of each message; an invisible thread, message or event answering as a missing one."""
    listed = items(actor, "list_threads")
    assert sorted(numbers(listed)) == sight.threads
    assert paged(actor, "list_threads") == listed
    searched = items(actor, "list_threads", q="Q")
    assert set(numbers(searched)) <= set(sight.threads)
    assert paged(actor, "list_threads", q="Q") == searched
    for thread in Thread.objects.order_by("id"):
        if sight.sees_thread(thread.pk):
            status, body = answer(actor, "read_thread", thread=thread.pk)
            assert status == 200 and body["thread"]["message_count"] == thread.message_count
        else:
            for operation in ("read_thread", "list_events", "list_claims"):
                assert_answers_as_missing(actor, operation, "thread", f"th_{thread.pk}", f"th_{MISSING}")
    for message in Message.objects.order_by("id"):
        if sight.sees_thread(message.thread_id):
            assert answer(actor, "read_message", message=message.pk)[0] == 200
        else:
            assert_answers_as_missing(actor, "read_message", "message", f"msg_{message.pk}", f"msg_{MISSING}")


def check_events_inbox_claims(actor, sight):
    """list_events, inbox and list_claims, whole and page by page: nothing of an invisible thread; and
    read_claim of each claim."""
    events = items(actor, "list_events")
    assert {int(item["thread"][3:]) for item in events} == set(sight.threads)
    assert paged(actor, "list_events") == events
    inbox = items(actor, "inbox")
    assert sorted(numbers(inbox)) == inbox_oracle(actor, sight)
    assert paged(actor, "inbox") == inbox
    claims = items(actor, "list_claims")
    visible_claims = sorted(Claim.objects.filter(thread_id__in=sight.threads).values_list("pk", flat=True))
    assert sorted(numbers(claims)) == visible_claims
    assert paged(actor, "list_claims") == claims
    for claim in Claim.objects.order_by("id"):
        if claim.thread_id in sight.threads:
            assert answer(actor, "read_claim", claim=claim.pk)[0] == 200
        else:
            assert_answers_as_missing(actor, "read_claim", "claim", f"cl_{claim.pk}", f"cl_{MISSING}")


def check_rooms(actor, sight):
    """list_rooms (with and without q=, page by page) and its counts, read_room; each list with `room=` on a
    visible room shows that room's visible threads, on an invisible one (by number or slug) answers as a
    missing room does."""
    listed = items(actor, "list_rooms")
    assert set(numbers(listed)) == sight.rooms
    assert paged(actor, "list_rooms") == listed
    assert set(numbers(items(actor, "list_rooms", q="i"))) == {
        room.pk for room in Room.objects.filter(pk__in=sight.rooms) if "i" in room.slug + room.name.lower()}
    in_room = {number: [] for number in sight.rooms}
    for thread in Thread.objects.filter(pk__in=sight.threads).order_by("id"):
        in_room[thread.room_number].append(thread.pk)
    for room in listed:
        assert room["thread_count"] == len(in_room[int(room["id"][3:])])
    for room in Room.objects.order_by("id"):
        ref = f"rm_{room.pk}"
        if room.pk in sight.rooms:
            status, body = answer(actor, "read_room", room=ref)
            assert status == 200 and body["room"]["thread_count"] == len(in_room[room.pk])
            assert sorted(numbers(items(actor, "list_threads", room=ref))) == in_room[room.pk]
            assert set(numbers(items(actor, "list_threads", room=ref, q="Q"))) <= set(in_room[room.pk])
            assert {int(item["thread"][3:]) for item in items(actor, "list_events", room=ref)} == set(
                in_room[room.pk])
            assert set(numbers(items(actor, "inbox", room=ref))) <= set(in_room[room.pk])
            assert {int(item["thread"][3:]) for item in items(actor, "list_claims", room=ref)} <= set(
                in_room[room.pk])
            continue
        for operation in ("list_threads", "inbox", "list_events", "list_claims", "read_room"):
            assert_answers_as_missing(actor, operation, "room", ref, f"rm_{MISSING}")
            assert_answers_as_missing(actor, operation, "room", room.slug, "no-such-room")
        # one invisible room in a comma list refuses the whole list, as a missing one there does
        assert answer(actor, "list_threads", room=f"rm_1,{ref}") == as_missing(
            actor, "list_threads", "room", ref, f"rm_{MISSING}")
        assert_answers_as_missing(actor, "list_rooms", "parent", ref, f"rm_{MISSING}")


@EXAMPLES
@given(steps=WORLDS)
def test_no_operation_shows_a_line_what_it_may_not_see(steps, make_token, operator):
    with transaction.atomic():
        world = build(make_token, operator, steps)
        for actor in world.actors.values():
            sight = oracle(actor)
            check_threads(actor, sight)
            check_events_inbox_claims(actor, sight)
            check_rooms(actor, sight)
        transaction.set_rollback(True)


def test_an_invisible_room_in_a_comma_list_answers_as_a_missing_one_there(make_token, operator, make_room):
    """room= with a comma list: the first unknown or invisible room refuses the list, naming itself."""
    from forum.actors import Actor

    hidden = make_room("hidden", visibility="private")
    bob = Actor.for_token(make_token("bob"))
    assert answer(bob, "list_threads", room=f"rm_1,{hidden}") == as_missing(
        bob, "list_threads", "room", hidden, f"rm_{MISSING}")
