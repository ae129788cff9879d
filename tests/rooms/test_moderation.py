"""§20 "Moderation and sealing in a room": room moderators hold lock's powers over their rooms' threads,
move_thread needs moderation of both rooms, whoami names the appointments."""
from forum.models import StateEvent, Thread
from tests.forum.expect import accepted, refused


def test_a_room_moderators_mark_binds_at_once_in_its_room(make_room, appoint, as_alice, as_bob, bob):
    room = make_room("design")
    appoint(room, bob)
    thread = as_alice.ask("Decide it?", room=room)
    decided = accepted(as_bob.say("decide", "Decided.", thread=thread))["thread"]
    assert (decided["state"], decided["state_confirmed_by"]) == ("decided", bob.identity)


def test_a_room_moderator_has_no_powers_outside_its_rooms(make_room, appoint, as_alice, as_bob, bob):
    room = make_room("design")
    appoint(room, bob)
    thread = as_alice.ask("Elsewhere?")
    refused(as_bob.say("decide", "No.", thread=thread), 403, "thread_authority_missing")


def test_a_room_moderator_confirms_and_dismisses_in_its_room(make_room, appoint, as_alice, as_bob, as_carol, bob):
    room = make_room("design")
    appoint(room, bob)
    thread = as_alice.ask("Propose?", room=room)
    accepted(as_carol.say("answer", "An answer.", thread=thread))
    accepted(as_alice.say("decide", "My proposal.", thread=thread))
    assert accepted(as_bob.post(f"/api/v1/threads/{thread}/confirm"), 200)["thread"]["state_confirmed_by"] == bob.identity


def test_confirm_outside_ones_rooms_is_token_right_missing(make_room, appoint, as_alice, as_bob, as_carol, bob):
    room = make_room("design")
    appoint(room, bob)
    thread = as_alice.ask("Not bob's room")
    accepted(as_carol.say("answer", "An answer.", thread=thread))
    accepted(as_alice.say("decide", "My proposal.", thread=thread))
    refused(as_bob.post(f"/api/v1/threads/{thread}/confirm"), 403, "token_right_missing", right="lock")
    assert Thread.objects.get(pk=int(thread.removeprefix("th_"))).state_confirmed_at is None


def test_the_moderation_queue_of_a_room_moderator_lists_its_rooms_only(make_room, appoint, as_alice, as_bob,
                                                                        as_carol, bob):
    room = make_room("design")
    appoint(room, bob)
    mine, other = as_alice.ask("In design", room=room), as_alice.ask("Elsewhere")
    for thread in (mine, other):
        accepted(as_carol.say("answer", "An answer.", thread=thread))
        accepted(as_alice.say("decide", "Proposed.", thread=thread))
    queue = [item["id"] for item in as_bob.get("/api/v1/inbox", awaiting="confirmation").json()["items"]]
    assert queue == [mine]


def test_move_thread_moves_and_records_a_move_event(make_room, as_alice, as_mod):
    room = make_room("design")
    thread = as_alice.ask("Move me")
    body = accepted(as_mod.post(f"/api/v1/threads/{thread}/move", {"room": room, "reason": "It is design."}), 200)
    assert (body["thread"]["room"], body["thread"]["state"], body["message"]) == (room, "open", None)
    event = as_mod.get(f"/api/v1/threads/{thread}/events").json()["items"][-1]
    assert (event["label"], event["room"], event["from_room"], event["note"]) == ("move", room, "rm_1", "It is design.")
    assert (event["from_state"], event["to_state"]) == ("open", "open")


def test_moving_needs_moderation_of_both_rooms(make_room, appoint, as_alice, as_bob, bob):
    design, ops = make_room("design"), make_room("ops")
    appoint(design, bob)
    thread = as_alice.ask("Move me", room=design)
    refused(as_bob.post(f"/api/v1/threads/{thread}/move", {"room": ops}), 403, "token_right_missing", right="lock")
    assert not StateEvent.objects.filter(label="move").exists()
    appoint(ops, bob)
    accepted(as_bob.post(f"/api/v1/threads/{thread}/move", {"room": ops}), 200)


def test_a_moved_out_thread_is_lost_by_who_cannot_see_the_new_room(make_room, add_member, as_alice, as_bob, as_mod,
                                                                    alice):
    secret = make_room("secret", visibility="private")
    add_member(secret, alice)
    thread = as_alice.ask("Public for now")
    accepted(as_bob.get(f"/api/v1/threads/{thread}"), 200)
    accepted(as_mod.post(f"/api/v1/threads/{thread}/move", {"room": secret}), 200)
    refused(as_bob.get(f"/api/v1/threads/{thread}"), 404, "not_found")
    assert thread not in [item["thread"] for item in as_bob.get("/api/v1/events").json()["items"]]


def test_moving_into_or_out_of_an_archived_room_is_room_archived(make_room, as_alice, as_mod, operator):
    from rooms.services import room_archive

    old = make_room("old")
    thread = as_alice.ask("Move me")
    room_archive(operator, old)
    refused(as_mod.post(f"/api/v1/threads/{thread}/move", {"room": old}), 409, "room_archived", room=old)


def test_whoami_names_the_rooms_one_moderates_and_verifies(make_room, appoint, as_bob, bob):
    design, ops = make_room("design"), make_room("ops")
    appoint(design, bob)
    appoint(ops, bob, "verifier")
    body = accepted(as_bob.get("/api/v1/whoami"), 200)
    assert (body["moderates"], body["verifies"]) == ([design], [ops])


def test_a_room_verifier_verifies_without_the_verify_right(make_room, appoint, as_alice, as_bob, as_carol, carol):
    room = make_room("lab")
    appoint(room, carol, "verifier")
    thread = as_alice.ask("Is it so?", room=room)
    claim = accepted(as_alice.say("assert", "It is so.", thread=thread))["claim"]["id"]
    accepted(as_bob.say("attest", "Seen it.", thread=thread, claim=claim,
                        proof=[{"kind": "url", "ref": "https://example.org/a"}]))
    verified = accepted(as_carol.say("verify", "Checked.", thread=thread, claim=claim))["claim"]
    assert verified["state"] == "verified"


def test_verify_outside_ones_rooms_needs_the_verify_right(make_room, appoint, as_alice, as_bob, as_carol, carol):
    appoint(make_room("lab"), carol, "verifier")
    thread = as_alice.ask("Is it so?")
    claim = accepted(as_alice.say("assert", "It is so.", thread=thread))["claim"]["id"]
    accepted(as_bob.say("attest", "Seen it.", thread=thread, claim=claim,
                        proof=[{"kind": "url", "ref": "https://example.org/a"}]))
    refused(as_carol.say("verify", "Checked.", thread=thread, claim=claim), 403, "token_right_missing", right="verify")


def test_a_rooms_quorum_is_a_floor_for_the_claims_asserted_in_it(make_room, as_alice):
    room = make_room("lab", quorum=3)
    thread = as_alice.ask("How sure?", room=room)
    assert accepted(as_alice.say("assert", "Quite.", thread=thread))["claim"]["quorum"]["need"] == 3
    assert accepted(as_alice.say("assert", "Very.", thread=thread, quorum=5))["claim"]["quorum"]["need"] == 5


def test_a_move_awaited_from_a_line_that_can_no_longer_see_the_thread_is_escalated(make_room, add_member, alice,
                                                                                   bob, as_alice, as_bob, as_mod,
                                                                                   operator):
    from rooms.services import member_remove

    room = make_room("secret", visibility="private")
    add_member(room, alice)
    add_member(room, bob)
    thread = as_alice.ask("Whose move?", room=room)
    accepted(as_bob.say("answer", "Yours, alice.", thread=thread))
    queue = lambda: [item["id"] for item in as_mod.get("/api/v1/inbox", awaiting="confirmation").json()["items"]]  # noqa: E731
    assert thread not in queue()
    member_remove(operator, room, alice.identity)
    assert thread in queue()
    assert thread not in [item["id"] for item in as_alice.get("/api/v1/inbox", awaiting="decision").json()["items"]]


def test_the_room_log_records_every_change_with_actor_and_time(make_room, add_member, alice, as_mod, as_alice):
    room = make_room("team", visibility="private")
    add_member(room, alice)
    entries = accepted(as_mod.get(f"/api/v1/rooms/{room}/log"), 200)["items"]
    assert [(entry["action"], entry["actor"], entry["subject"]) for entry in entries] == [
        ("created", "operator:tests", None), ("member_added", "operator:tests", alice.identity)]
    refused(as_alice.get(f"/api/v1/rooms/{room}/log"), 403, "token_right_missing", right="lock")
