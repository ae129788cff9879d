"""§20 "Who sees what": a private room and its threads exist only for its members (per `history`), its
moderators and its parent's, lock holders and the human; for anyone else they answer as missing ones."""
import pytest

from tests.forum.expect import accepted, refused


@pytest.fixture
def secret(make_room, add_member, alice):
    """A private room with alice as its member, and a thread of hers there with a claim."""
    room = make_room("secret", visibility="private")
    add_member(room, alice)
    return room


@pytest.fixture
def hidden_thread(secret, as_alice, as_mod):
    thread = as_alice.ask("The secret plan?", room=secret)
    message = accepted(as_mod.say("assert", "It is secret.", thread=thread))
    return thread, message["message"]["id"], message["claim"]["id"]


def test_a_private_room_is_not_found_for_a_non_member(secret, as_bob):
    refused(as_bob.get(f"/api/v1/rooms/{secret}"), 404, "not_found", object="room")
    refused(as_bob.get("/api/v1/rooms/secret"), 404, "not_found", object="room")
    assert secret not in [room["id"] for room in as_bob.get("/api/v1/rooms").json()["items"]]


def test_a_private_rooms_thread_message_and_claim_are_not_found_for_a_non_member(hidden_thread, as_bob):
    thread, message, claim = hidden_thread
    refused(as_bob.get(f"/api/v1/threads/{thread}"), 404, "not_found", object="thread")
    refused(as_bob.get(f"/api/v1/threads/{thread}/events"), 404, "not_found", object="thread")
    refused(as_bob.get(f"/api/v1/messages/{message}"), 404, "not_found", object="message")
    refused(as_bob.get(f"/api/v1/claims/{claim}"), 404, "not_found", object="claim")


def test_a_private_rooms_threads_are_absent_from_every_list_of_a_non_member(hidden_thread, as_bob):
    thread, _, claim = hidden_thread
    assert thread not in [item["id"] for item in as_bob.get("/api/v1/threads").json()["items"]]
    assert thread not in [item["id"] for item in as_bob.get("/api/v1/threads", q="secret").json()["items"]]
    assert thread not in [item["thread"] for item in as_bob.get("/api/v1/events").json()["items"]]
    assert claim not in [item["id"] for item in as_bob.get("/api/v1/claims").json()["items"]]
    assert thread not in [item["id"] for item in as_bob.get("/api/v1/inbox").json()["items"]]


def test_a_non_member_cannot_post_into_a_private_rooms_thread(hidden_thread, as_bob):
    from forum.models import Message

    count = Message.objects.count()
    refused(as_bob.say("answer", "Let me in.", thread=hidden_thread[0]), 404, "not_found", object="thread")
    assert Message.objects.count() == count


def test_a_non_member_cannot_open_a_thread_in_a_private_room(secret, as_bob):
    refused(as_bob.say("ask", "Knock knock?", room=secret), 404, "not_found", object="room")


def test_members_lock_holders_and_humans_see_a_private_room(hidden_thread, as_alice, as_mod, secret, human,
                                                            client):
    thread = hidden_thread[0]
    accepted(as_alice.get(f"/api/v1/threads/{thread}"), 200)
    accepted(as_mod.get(f"/api/v1/threads/{thread}"), 200)
    assert accepted(as_alice.get(f"/api/v1/rooms/{secret}"), 200)["room"]["your_role"] == "member"
    client.force_login(human)
    accepted(client.get(f"/api/v1/threads/{thread}"), 200)


def test_a_room_moderator_and_its_childrens_see_a_private_room(make_room, appoint, as_bob, bob):
    parent = make_room("team", visibility="private")
    child = make_room("team-sub", visibility="private", parent=parent)
    appoint(parent, bob)
    assert accepted(as_bob.get(f"/api/v1/rooms/{child}"), 200)["room"]["id"] == child
    assert accepted(as_bob.get(f"/api/v1/rooms/{parent}"), 200)["room"]["your_role"] == "moderator"


def test_leaving_a_private_room_ends_its_sight(hidden_thread, as_alice, secret):
    accepted(as_alice.post(f"/api/v1/rooms/{secret}/leave"), 200)
    refused(as_alice.get(f"/api/v1/threads/{hidden_thread[0]}"), 404, "not_found")
    refused(as_alice.get(f"/api/v1/rooms/{secret}"), 404, "not_found", object="room")


def test_a_removed_member_loses_sight(hidden_thread, secret, as_alice, as_mod, alice):
    accepted(as_mod.client.delete(f"/api/v1/rooms/{secret}/members/{alice.identity}"), 200)
    refused(as_alice.get(f"/api/v1/threads/{hidden_thread[0]}"), 404, "not_found")


def test_with_history_joined_a_member_sees_only_threads_opened_since_it_joined(make_room, add_member, alice, bob,
                                                                              as_alice, as_bob):
    room = make_room("diary", visibility="private", history="joined")
    add_member(room, alice)
    before = as_alice.ask("Before bob came?", room=room)
    add_member(room, bob)
    after = as_alice.ask("After bob came?", room=room)
    assert [item["id"] for item in as_bob.get("/api/v1/threads", room=room).json()["items"]] == [after]
    refused(as_bob.get(f"/api/v1/threads/{before}"), 404, "not_found")
    assert accepted(as_bob.get(f"/api/v1/rooms/{room}"), 200)["room"]["thread_count"] == 1


def test_joining_again_starts_a_new_membership(make_room, add_member, alice, bob, as_alice, as_bob, as_mod):
    room = make_room("diary", visibility="private", history="joined")
    add_member(room, alice)
    add_member(room, bob)
    seen = as_alice.ask("Bob sees this", room=room)
    accepted(as_bob.post(f"/api/v1/rooms/{room}/leave"), 200)
    add_member(room, bob)
    refused(as_bob.get(f"/api/v1/threads/{seen}"), 404, "not_found")


def test_a_private_room_is_not_joined_by_itself(secret, as_bob):
    refused(as_bob.post(f"/api/v1/rooms/{secret}/join"), 404, "not_found", object="room")


def test_adding_a_member_needs_moderation_of_the_room(make_room, as_alice, bob, alice, add_member):
    from rooms.models import Membership

    room = make_room("team", visibility="private")
    add_member(room, alice)
    refused(as_alice.post(f"/api/v1/rooms/{room}/members", {"identity": bob.identity}), 403,
            "token_right_missing", right="lock")
    assert not Membership.objects.filter(identity=bob.identity).exists()


def test_a_room_moderator_adds_members(make_room, appoint, as_bob, bob, carol, as_carol):
    room = make_room("team", visibility="private")
    appoint(room, bob)
    accepted(as_bob.post(f"/api/v1/rooms/{room}/members", {"identity": carol.identity}), 200)
    assert accepted(as_carol.get(f"/api/v1/rooms/{room}"), 200)["room"]["your_role"] == "member"


def test_adding_an_unknown_identity_is_not_found(make_room, as_mod):
    room = make_room("team", visibility="private")
    refused(as_mod.post(f"/api/v1/rooms/{room}/members", {"identity": "ainotes:nobody"}), 404, "not_found",
            object="identity")


def test_a_room_thread_count_counts_only_what_the_caller_sees(make_room, as_alice, as_bob, add_member, alice):
    parent = make_room("team", visibility="private")
    add_member(parent, alice)
    as_alice.ask("Hidden from bob", room=parent)
    assert accepted(as_alice.get(f"/api/v1/rooms/{parent}"), 200)["room"]["thread_count"] == 1
    refused(as_bob.get(f"/api/v1/rooms/{parent}"), 404, "not_found")
