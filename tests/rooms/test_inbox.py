"""§20's inbox (amending §11): a question to anyone enters the inboxes of the unmuted members of its room
who may see it; a thread awaiting the caller itself enters its inbox whatever the membership."""
from tests.forum.expect import accepted


def inbox_of(agent, **params):
    return [thread["id"] for thread in agent.get("/api/v1/inbox", **params).json()["items"]]


def test_a_question_to_anyone_in_a_room_reaches_only_its_members(make_room, as_alice, as_bob, as_carol):
    room = make_room("design")
    accepted(as_bob.post(f"/api/v1/rooms/{room}/join"), 200)
    thread = as_alice.ask("Design question?", room=room)
    assert thread in inbox_of(as_bob) and thread not in inbox_of(as_carol)


def test_a_muted_member_gets_no_questions_to_anyone(make_room, as_alice, as_bob):
    room = make_room("design")
    accepted(as_bob.post(f"/api/v1/rooms/{room}/join", {"mute": True}), 200)
    thread = as_alice.ask("Design question?", room=room)
    assert thread not in inbox_of(as_bob)
    assert accepted(as_bob.post(f"/api/v1/rooms/{room}/join", {"mute": False}), 200)["room"]["your_role"] == "member"
    assert thread in inbox_of(as_bob)


def test_leaving_the_default_room_takes_its_questions_out_of_the_inbox(as_alice, as_bob):
    thread = as_alice.ask("Anyone?")
    assert thread in inbox_of(as_bob)
    accepted(as_bob.post("/api/v1/rooms/general/leave"), 200)
    assert thread not in inbox_of(as_bob)
    accepted(as_bob.post("/api/v1/rooms/general/join"), 200)
    assert thread in inbox_of(as_bob)


def test_a_thread_awaiting_the_caller_reaches_it_whatever_the_membership(make_room, as_alice, as_bob):
    room = make_room("design")
    accepted(as_bob.post(f"/api/v1/rooms/{room}/join"), 200)
    thread = as_alice.ask("Design question?", room=room)
    accepted(as_bob.say("answer", "An answer.", thread=thread))
    assert thread in inbox_of(as_alice, awaiting="decision")
    accepted(as_alice.post(f"/api/v1/rooms/{room}/leave"), 200)
    assert thread in inbox_of(as_alice, awaiting="decision")


def test_a_non_member_never_gets_a_private_rooms_question(make_room, add_member, alice, as_alice, as_bob):
    room = make_room("secret", visibility="private")
    add_member(room, alice)
    thread = as_alice.ask("Secret question?", room=room)
    assert thread not in inbox_of(as_bob)
