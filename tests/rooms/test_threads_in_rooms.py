"""§20 "Threads in rooms": where a thread opens, the `room` field, `room` on threads and events, and the
`room=` filters; a client that never names a room notices nothing."""
import pytest

from forum.models import Thread
from tests.forum.expect import accepted, refused


def test_a_thread_opened_without_a_room_is_in_the_default_room(as_alice, as_bob):
    posted = accepted(as_alice.say("ask", "Where am I?"))
    assert posted["thread"]["room"] == "rm_1"
    events = as_bob.get("/api/v1/events").json()["items"]
    assert (events[0]["room"], events[0]["from_room"]) == ("rm_1", None)


@pytest.mark.parametrize("form", ["id", "number", "slug"])
def test_an_opening_ask_names_its_room_by_id_number_or_slug(form, make_room, as_alice):
    room = make_room("design")
    ref = {"id": room, "number": room.removeprefix("rm_"), "slug": "design"}[form]
    posted = accepted(as_alice.say("ask", "In the design room?", room=ref))
    assert posted["thread"]["room"] == room


def test_room_on_anything_but_an_opening_ask_is_invalid_body(make_room, as_alice, as_bob):
    room = make_room("design")
    thread = as_alice.ask("Open here")
    before = Thread.objects.get(pk=int(thread.removeprefix("th_"))).message_count
    refused(as_bob.say("note", "Move it?", thread=thread, room=room), 400, "invalid_body", field="room")
    refused(as_bob.say("ask", "Follow-up?", thread=thread, room=room), 400, "invalid_body", field="room")
    assert Thread.objects.get(pk=int(thread.removeprefix("th_"))).message_count == before


def test_an_unknown_room_is_not_found_and_opens_nothing(as_alice):
    refused(as_alice.say("ask", "Nowhere?", room="rm_999"), 404, "not_found", object="room")
    refused(as_alice.say("ask", "Nowhere?", room="no-such-room"), 404, "not_found", object="room")
    assert not Thread.objects.exists()


def test_an_event_carries_the_room_of_its_thread(make_room, as_alice, as_bob):
    room = make_room("design")
    thread = as_alice.ask("Events here?", room=room)
    accepted(as_bob.say("answer", "Yes.", thread=thread))
    events = as_bob.get(f"/api/v1/threads/{thread}/events").json()["items"]
    assert [event["room"] for event in events] == [room, room]


def test_list_threads_takes_room(make_room, as_alice, as_bob):
    design, ops = make_room("design"), make_room("ops")
    in_design, in_ops, in_default = as_alice.ask("a", room=design), as_alice.ask("b", room=ops), as_alice.ask("c")
    ids = lambda **params: [item["id"] for item in as_bob.get("/api/v1/threads", **params).json()["items"]]  # noqa: E731
    assert ids(room=design) == [in_design]
    assert ids(room=f"{design},general") == [in_design, in_default]
    assert ids() == [in_design, in_ops, in_default]


def test_a_room_filter_naming_an_unknown_room_is_not_found(as_bob, db):
    refused(as_bob.get("/api/v1/threads", room="rm_42"), 404, "not_found", object="room")
    refused(as_bob.get("/api/v1/events", room="nowhere"), 404, "not_found", object="room")
    refused(as_bob.get("/api/v1/inbox", room="rm_42"), 404, "not_found", object="room")
    refused(as_bob.get("/api/v1/claims", room="rm_42"), 404, "not_found", object="room")


def test_a_room_filter_of_more_than_room_filter_max_rooms_is_limit_exceeded(as_bob, settings):
    settings.PARLEY_ROOMS = {**settings.PARLEY_ROOMS, "limits": {**settings.PARLEY_ROOMS["limits"],
                                                                  "room_filter_max": 2}}
    refused(as_bob.get("/api/v1/threads", room="rm_1,rm_1,rm_1"), 409, "limit_exceeded", limit="room_filter_max")


def test_list_events_inbox_and_claims_take_room(make_room, as_alice, as_bob):
    design = make_room("design")
    inside, outside = as_alice.ask("Inside?", room=design), as_alice.ask("Outside?")
    accepted(as_alice.say("assert", "A claim inside.", thread=inside))
    accepted(as_alice.say("assert", "A claim outside.", thread=outside))
    accepted(as_bob.post(f"/api/v1/rooms/{design}/join"), 200)
    assert {event["thread"] for event in as_bob.get("/api/v1/events", room=design).json()["items"]} == {inside}
    assert [thread["id"] for thread in as_bob.get("/api/v1/inbox", room=design).json()["items"]] == [inside]
    assert [claim["thread"] for claim in as_bob.get("/api/v1/claims", room=design).json()["items"]] == [inside]
