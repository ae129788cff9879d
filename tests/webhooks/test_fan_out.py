"""§17: a write queues one fan-out job in its own transaction, and the worker finds whom it concerns."""
import pytest
from django.db import transaction
from django_tasks_db.models import DBTaskResult

from forum import services
from forum.actors import Actor
from forum.envelope import clean_envelope
from tests.forum.expect import refused
from tests.webhooks.conftest import jobs
from webhooks.models import Delivery


def test_a_post_queues_exactly_one_fan_out_job(as_alice, as_bob):
    thread = as_alice.ask()
    DBTaskResult.objects.all().delete()
    assert as_bob.say("answer", "Port 8000.", thread=thread).status_code == 201  # a message and an event
    assert len(jobs("fan_out")) == 1 and DBTaskResult.objects.count() == 1


def test_opening_a_thread_queues_one_fan_out_job(as_alice):
    as_alice.ask()
    assert len(jobs("fan_out")) == 1


def test_a_confirm_queues_exactly_one_fan_out_job(thread_in, as_mod):
    thread = thread_in("answered")
    DBTaskResult.objects.all().delete()
    assert as_mod.post(f"/api/v1/threads/{thread}/confirm").status_code == 200
    assert len(jobs("fan_out")) == 1


def test_a_refused_write_queues_nothing(as_alice):
    thread = as_alice.ask()
    DBTaskResult.objects.all().delete()
    refused(as_alice.say("answer", "Mine.", thread=thread), 409, "self_reply")
    assert DBTaskResult.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_write_queues_nothing(alice):
    class Abandoned(Exception):
        pass
    with pytest.raises(Abandoned), transaction.atomic():
        services.message_post(Actor.for_token(alice), clean_envelope({"kind": "ask", "body": "Lost?"}))
        assert DBTaskResult.objects.count() == 1  # queued inside the write's transaction...
        raise Abandoned
    assert DBTaskResult.objects.count() == 0  # ...and gone with it


def test_a_thread_topic_gets_each_of_the_threads_events(as_alice, as_bob, alice, make_webhook, run_fan_outs):
    thread = as_bob.ask()
    run_fan_outs()
    make_webhook(alice, "http://127.0.0.1:9/hook", [thread])
    as_bob.say("note", "A remark.", thread=thread)  # no event
    as_alice.say("answer", "Port 8000.", thread=thread)  # an event
    run_fan_outs()
    assert [(d.type, d.event_id is not None) for d in Delivery.objects.all()] == [("event", True)]


def test_the_inbox_topic_gets_threads_entering_the_tokens_inbox_but_not_its_own_questions(
        as_alice, as_bob, alice, make_webhook, run_fan_outs):
    make_webhook(alice, "http://127.0.0.1:9/hook", ["inbox"])
    as_alice.ask("Mine?")
    theirs = as_bob.ask("Bob's?")
    run_fan_outs()
    assert [(d.type, f"th_{d.thread_id}") for d in Delivery.objects.all()] == [("inbox", theirs)]


def test_an_answer_enters_the_askers_inbox_awaiting_its_decision(as_alice, as_bob, alice, make_webhook,
                                                                 run_fan_outs):
    thread = as_alice.ask()
    make_webhook(alice, "http://127.0.0.1:9/hook", ["inbox"])
    run_fan_outs()
    as_bob.say("answer", "Port 8000.", thread=thread)
    run_fan_outs()
    assert [(d.type, f"th_{d.thread_id}") for d in Delivery.objects.all()] == [("inbox", thread)]


def test_a_confirm_that_leaves_the_thread_awaiting_the_token_enters_its_inbox(
        thread_in, as_alice, as_mod, alice, make_webhook, run_fan_outs):
    thread = thread_in("decided")  # alice's proposal: it awaits a moderator, not alice
    make_webhook(alice, "http://127.0.0.1:9/hook", ["inbox"])
    run_fan_outs()
    assert Delivery.objects.count() == 0
    as_mod.post(f"/api/v1/threads/{thread}/confirm")  # now it awaits alice's close
    run_fan_outs()
    assert [(d.type, f"th_{d.thread_id}") for d in Delivery.objects.all()] == [("inbox", thread)]


def test_the_moderation_queue_reaches_the_inboxes_of_lock_holders_only(as_alice, mod, bob, make_webhook,
                                                                       run_fan_outs):
    thread = as_alice.ask()
    run_fan_outs()
    make_webhook(mod, "http://127.0.0.1:9/hook", ["inbox"])
    make_webhook(bob, "http://127.0.0.1:9/hook", ["inbox"])
    as_alice.say("defer", "Later.", thread=thread)  # a proposal: awaits confirmation from a moderator
    run_fan_outs()
    assert [(d.webhook.token_id, d.type) for d in Delivery.objects.all()] == [(mod.pk, "inbox")]


def test_a_webhook_announces_only_writes_made_after_it_was_created(as_bob, alice, make_webhook, run_fan_outs):
    thread = as_bob.ask()  # its fan-out job still queued...
    make_webhook(alice, "http://127.0.0.1:9/hook", [thread, "inbox"])  # ...when the webhook is created
    run_fan_outs()
    assert Delivery.objects.count() == 0


def test_a_question_to_anyone_in_a_room_the_line_left_never_reaches_its_inbox_topic(
        as_alice, as_bob, alice, make_webhook, run_fan_outs):
    """§20 amends §11: a question to anyone reaches the unmuted members of its room, over a webhook as in
    the inbox itself."""
    make_webhook(alice, "http://127.0.0.1:9/hook", ["inbox"])
    assert as_alice.post("/api/v1/rooms/rm_1/leave").status_code == 200
    as_bob.ask("Anyone?")
    run_fan_outs()
    assert as_alice.get("/api/v1/inbox").json()["items"] == []
    assert not Delivery.objects.exists()
