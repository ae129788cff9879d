"""§20's refusals, in §13's order (… not_found → room_archived → room_restricted → thread_locked …), and its
limits; every refused write stores nothing."""
from forum.models import Message, Thread
from rooms.models import Membership, Room
from tests.forum.expect import accepted, refused


def test_opening_a_thread_in_an_archived_room_is_room_archived(make_room, as_alice, operator):
    from rooms.services import room_archive

    room = make_room("old")
    room_archive(operator, room)
    refused(as_alice.say("ask", "Still here?", room=room), 409, "room_archived", room=room)
    assert not Thread.objects.exists()


def test_a_reply_in_an_archived_room_is_room_archived_but_a_redaction_passes(make_room, as_alice, as_bob, as_mod,
                                                                             operator):
    from rooms.services import room_archive

    room = make_room("old")
    thread = as_alice.ask("Archived soon", room=room)
    note = accepted(as_bob.say("note", "A leaked secret", thread=thread))["message"]["id"]
    room_archive(operator, room)
    count = Message.objects.count()
    refused(as_bob.say("answer", "Late", thread=thread), 409, "room_archived", room=room)
    refused(as_mod.post(f"/api/v1/threads/{thread}/confirm"), 409, "room_archived")
    assert Message.objects.count() == count
    accepted(as_mod.post(f"/api/v1/messages/{note}/redact"), 200)


def test_room_archived_comes_before_thread_locked(make_room, as_alice, as_mod, operator):
    from rooms.services import room_archive

    room = make_room("old")
    thread = as_alice.ask("Locked and archived", room=room)
    accepted(as_mod.say("obsolete", "Gone", thread=thread))
    room_archive(operator, room)
    refused(as_alice.say("note", "Hello?", thread=thread), 409, "room_archived")


def test_opening_in_a_members_room_by_a_non_member_is_room_restricted(make_room, as_alice, alice):
    room = make_room("team", opening="members")
    error = refused(as_alice.say("ask", "May I?", room=room), 403, "room_restricted", rule="opening", room=room)
    assert error["detail"]["room"] == room and not Thread.objects.exists()
    accepted(as_alice.post(f"/api/v1/rooms/{room}/join"), 200)
    accepted(as_alice.say("ask", "Now I may.", room=room))


def test_opening_in_a_moderators_room_needs_moderation(make_room, as_alice, as_mod):
    room = make_room("announcements", opening="moderators")
    refused(as_alice.say("ask", "May I?", room=room), 403, "room_restricted", rule="opening")
    accepted(as_mod.say("ask", "Moderators may.", room=room))


def test_joining_a_private_room_one_can_see_is_room_restricted(make_room, as_mod, mod):
    room = make_room("secret", visibility="private")
    refused(as_mod.post(f"/api/v1/rooms/{room}/join"), 403, "room_restricted", rule="membership", room=room)
    assert not Membership.objects.filter(identity=mod.identity).exists()


def test_joining_an_archived_room_is_room_archived_but_leaving_passes(make_room, as_alice, operator):
    from rooms.services import room_archive

    room, other = make_room("old"), make_room("older")
    accepted(as_alice.post(f"/api/v1/rooms/{room}/join"), 200)
    room_archive(operator, room)
    room_archive(operator, other)
    refused(as_alice.post(f"/api/v1/rooms/{other}/join"), 409, "room_archived", room=other)
    assert accepted(as_alice.post(f"/api/v1/rooms/{room}/leave"), 200)["room"]["your_role"] is None


def test_creating_a_room_needs_lock(as_alice, db):
    refused(as_alice.post("/api/v1/rooms", {"slug": "mine", "name": "Mine"}), 403, "token_right_missing",
            right="lock")
    assert Room.objects.count() == 1


def test_a_lock_holder_creates_a_room_over_rest(as_mod, db):
    body = accepted(as_mod.post("/api/v1/rooms", {"slug": "ops", "name": "Operations", "opening": "members"}))
    assert (body["room"]["slug"], body["room"]["opening"]) == ("ops", "members")


def test_a_malformed_or_taken_slug_is_invalid_body(as_mod, make_room):
    make_room("ops")
    for slug in ("ops", "1234", "-x", "Upper"):
        refused(as_mod.post("/api/v1/rooms", {"slug": slug, "name": "x"}), 400, "invalid_body", field="slug")
    assert Room.objects.count() == 2


def test_a_public_child_of_a_private_room_is_invalid_body(as_mod, make_room):
    parent = make_room("hidden", visibility="private")
    refused(as_mod.post("/api/v1/rooms", {"slug": "kid", "name": "Kid", "parent": parent}), 400, "invalid_body",
            field="visibility")


def test_a_grandchild_is_room_depth_max(as_mod, make_room):
    parent = make_room("top")
    child = make_room("middle", parent=parent)
    refused(as_mod.post("/api/v1/rooms", {"slug": "low", "name": "Low", "parent": child}), 409, "limit_exceeded",
            limit="room_depth_max")


def test_more_rooms_than_rooms_max_is_limit_exceeded(as_mod, make_room, settings):
    settings.PARLEY_ROOMS = {**settings.PARLEY_ROOMS, "limits": {**settings.PARLEY_ROOMS["limits"], "rooms_max": 2}}
    make_room("second")
    refused(as_mod.post("/api/v1/rooms", {"slug": "third", "name": "x"}), 409, "limit_exceeded", limit="rooms_max")


def test_more_memberships_than_memberships_per_line_max_is_limit_exceeded(as_alice, make_room, settings):
    settings.PARLEY_ROOMS = {**settings.PARLEY_ROOMS, "limits": {**settings.PARLEY_ROOMS["limits"],
                                                                  "memberships_per_line_max": 1}}
    first, second = make_room("first"), make_room("second")
    accepted(as_alice.post(f"/api/v1/rooms/{first}/join"), 200)
    refused(as_alice.post(f"/api/v1/rooms/{second}/join"), 409, "limit_exceeded", limit="memberships_per_line_max")


def test_the_default_room_is_never_archived_nor_private(as_mod, operator, db):
    from rooms.services import room_archive, room_edit

    refused(as_mod.post("/api/v1/rooms/rm_1/archive"), 409, "invalid_transition")
    try:
        room_edit(operator, "rm_1", {"visibility": "private"})
    except Exception as refusal:  # noqa: BLE001
        assert refusal.reason == "invalid_body" and refusal.detail["field"] == "visibility"
    else:
        raise AssertionError("made the default room private")
    assert not Room.objects.get(pk=1).is_private and room_archive  # unchanged
