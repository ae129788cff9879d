"""§20 "Feed, webhooks, MCP": a webhook topic `room:rm_<n>` delivers the events of the threads now in that
room that its token may read, judged by forum.access at fan-out and again at delivery; a moved-out thread
stops; a room the token may not see is not_found at creation, as an unknown one."""
from django_tasks_db.models import DBTaskResult

from forum.models import StateEvent
from tests.forum.expect import accepted, refused
from tests.rooms.conftest import add_member, make_room, operator  # noqa: F401  (fixtures)
from tests.webhooks.conftest import nothing_stored_here
from webhooks.models import Delivery, Topic

URL = "http://127.0.0.1:9/hook"


def delivered_events():
    """(token, thread, event label) of every event delivery, oldest first."""
    return [(d.webhook.token_id, f"th_{d.thread_id}", StateEvent.objects.get(pk=d.event_id).label)
            for d in Delivery.objects.filter(type="event").select_related("webhook").order_by("id")]


def test_a_room_topic_gets_the_events_of_the_threads_in_that_room(
        make_room, as_alice, as_bob, bob, make_webhook, run_fan_outs):
    design = make_room("design")
    make_webhook(bob, URL, [f"room:{design}"])
    inside, outside = as_alice.ask("Inside?", room=design), as_alice.ask("Outside?")
    accepted(as_bob.say("answer", "Here.", thread=inside))
    accepted(as_bob.say("answer", "There.", thread=outside))
    run_fan_outs()
    assert [(thread, label) for _, thread, label in delivered_events()] == [(inside, "ask"), (inside, "answer")]


def test_a_room_topic_is_listed_as_it_was_given(make_room, as_bob, bob, make_webhook, allow_loopback):
    design = make_room("design")
    created = make_webhook(bob, URL, [f"room:{design}", "inbox"])
    assert created["topics"] == [f"room:{design}", "inbox"]
    assert as_bob.get("/api/v1/webhooks").json()["items"][0]["topics"] == [f"room:{design}", "inbox"]


def test_a_room_topic_naming_a_room_the_token_may_not_see_is_not_found_as_an_unknown_one(
        make_room, as_bob, allow_loopback):
    hidden = make_room("secret", visibility="private")
    for room in (hidden, "rm_999"):
        with nothing_stored_here():
            refused(as_bob.post("/api/v1/webhooks", {"url": URL, "topics": [f"room:{room}"]}), 404, "not_found",
                    object="room")
    assert not Topic.objects.exists()


def test_a_room_topic_must_name_the_room_as_rm_n(make_room, as_bob, allow_loopback):
    make_room("design")
    with nothing_stored_here():
        refused(as_bob.post("/api/v1/webhooks", {"url": URL, "topics": ["room:design"]}), 400, "invalid_body",
                field="topics[0]")


def test_a_room_topic_gets_nothing_of_a_thread_its_token_may_not_see(
        make_room, add_member, as_alice, as_mod, alice, bob, make_webhook, run_fan_outs):
    team = make_room("team", visibility="private", history="joined")
    add_member(team, alice)
    before = as_alice.ask("Before bob joined?", room=team)
    add_member(team, bob)
    make_webhook(bob, URL, [f"room:{team}"])
    accepted(as_mod.say("note", "Still before.", thread=before))
    after = as_alice.ask("After bob joined?", room=team)
    accepted(as_mod.say("answer", "An answer bob may not see.", thread=before))
    run_fan_outs()
    assert {thread for _, thread, _ in delivered_events()} == {after}


def test_a_thread_moved_out_of_the_room_stops_reaching_its_followers(
        make_room, as_alice, as_bob, as_mod, bob, carol, make_webhook, run_fan_outs):
    design, ops = make_room("design"), make_room("ops")
    make_webhook(bob, URL, [f"room:{design}"])
    make_webhook(carol, URL, [f"room:{ops}"])
    thread = as_alice.ask("Where does it belong?", room=design)
    run_fan_outs()
    accepted(as_mod.post(f"/api/v1/threads/{thread}/move", {"room": ops}), 200)
    accepted(as_bob.say("answer", "In ops.", thread=thread))
    run_fan_outs()
    # bob's webhook is told of the move that took it out, and of nothing after; carol's, from the move on.
    assert sorted((token, label) for token, _, label in delivered_events()) == sorted([
        (bob.pk, "ask"), (bob.pk, "move"), (carol.pk, "move"), (carol.pk, "answer")])


def test_an_event_fanned_out_after_its_thread_moved_goes_by_the_room_the_thread_is_in_now(
        make_room, as_alice, as_mod, bob, make_webhook, run_fan_outs):
    design, ops = make_room("design"), make_room("ops")
    make_webhook(bob, URL, [f"room:{design}"])
    thread = as_alice.ask("Moved before the worker ran?", room=design)
    accepted(as_mod.post(f"/api/v1/threads/{thread}/move", {"room": ops}), 200)
    run_fan_outs()
    assert [label for _, _, label in delivered_events()] == ["move"]


def test_a_webhook_following_a_thread_and_its_room_gets_each_event_once(
        make_room, as_alice, as_bob, bob, make_webhook, run_fan_outs):
    design = make_room("design")
    thread = as_alice.ask("Once?", room=design)
    run_fan_outs()
    make_webhook(bob, URL, [thread, f"room:{design}"])
    accepted(as_bob.say("answer", "Once.", thread=thread))
    accepted(as_alice.say("reject", "Not yet.", thread=thread))
    run_fan_outs()
    assert [label for _, _, label in delivered_events()] == ["answer", "reject"]


def test_a_room_delivery_is_dropped_when_its_token_may_no_longer_see_the_thread_when_sent(
        make_room, add_member, operator, as_alice, alice, bob, make_webhook, run_fan_outs, run_jobs, receiver):
    from rooms.services import member_remove

    target = receiver()
    team = make_room("team", visibility="private")
    add_member(team, alice)
    add_member(team, bob)
    make_webhook(bob, target.url, [f"room:{team}"])
    as_alice.ask("Seen at fan-out only?", room=team)
    run_fan_outs()
    assert Delivery.objects.count() == 1
    member_remove(operator, team, bob.identity)
    run_jobs()
    assert target.requests == []
    assert Delivery.objects.get().dropped_reason == "token may no longer read it: not_found"
    assert not DBTaskResult.objects.filter(status="READY").exists()
