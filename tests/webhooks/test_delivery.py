"""§17 deliveries to real HTTP receivers on loopback: signed as Standard Webhooks do, at least once, the same
webhook-id on every retry, backoff for 24 hours and then the webhook disabled; only while the token may read."""
import logging
from datetime import timedelta

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook as Verifier

from forum.actors import Actor
from forum.tokens import token_revoke, token_update
from webhooks.models import Delivery, Webhook


@pytest.fixture
def followed(as_bob, alice, make_webhook, run_jobs):
    """follow(receiver) -> (thread, created webhook): alice's webhook on bob's thread, nothing queued yet."""

    def follow(receiver):
        thread = as_bob.ask()
        run_jobs()
        return thread, make_webhook(alice, receiver.url, [thread])

    return follow


def test_a_delivery_is_signed_with_the_secret_shown_at_creation(receiver, followed, as_alice, run_jobs):
    hook = receiver()
    thread, created = followed(hook)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()
    [request] = hook.requests
    payload = Verifier(created["secret"]).verify(request["body"], request["headers"])
    assert payload["type"] == "event" and payload["thread"]["id"] == thread
    assert payload["event"]["label"] == "answer" and payload["event"]["thread"] == thread
    assert payload["thread"] == as_alice.get(f"/api/v1/threads/{thread}").json()["thread"]  # the REST shape
    assert request["headers"]["webhook-signature"].startswith("v1,")
    assert Delivery.objects.get().delivered_at is not None


def test_an_inbox_delivery_carries_the_thread_and_no_event(receiver, as_bob, alice, make_webhook, run_jobs):
    hook = receiver()
    make_webhook(alice, hook.url, ["inbox"])
    thread = as_bob.ask()
    run_jobs()
    assert [(p["type"], p["thread"]["id"], p["event"]) for p in hook.payloads()] == [("inbox", thread, None)]


def test_a_retry_after_a_500_carries_the_same_webhook_id(receiver, followed, as_alice, run_jobs, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    hook = receiver(statuses=(500, 200))
    thread, created = followed(hook)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()
    delivery = Delivery.objects.get()
    assert (len(hook.requests), delivery.last_status, delivery.delivered_at) == (1, "HTTP 500", None)
    assert Webhook.objects.get().failing_since is not None
    time_machine.shift(timedelta(seconds=10))  # past the first backoff (5 s, with jitter)
    run_jobs()
    first, second = hook.requests
    assert first["headers"]["webhook-id"] == second["headers"]["webhook-id"] == Delivery.objects.get().stable_id
    Verifier(created["secret"]).verify(second["body"], second["headers"])
    delivery.refresh_from_db()
    assert delivery.delivered_at is not None and delivery.attempts == 2
    assert Webhook.objects.get().failing_since is None


def test_a_redirect_is_not_followed_and_counts_as_a_failure(receiver, followed, as_alice, run_jobs):
    target = receiver()
    hook = receiver(statuses=(302,), headers={"Location": target.url})
    thread, _ = followed(hook)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()
    delivery = Delivery.objects.get()
    assert target.requests == [] and len(hook.requests) == 1
    assert delivery.delivered_at is None and delivery.last_status.startswith("redirect 302")
    assert delivery.next_attempt_at is not None


def test_a_receiver_that_is_not_there_is_a_failed_attempt(followed, as_alice, run_jobs, allow_loopback):
    class Gone:
        url = "http://127.0.0.1:9/hook"  # the discard port: nothing listens
    thread, _ = followed(Gone)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()
    assert Delivery.objects.get().last_status.startswith("connection failed")


def test_after_24_hours_of_failures_the_webhook_is_disabled_and_shows_so(receiver, followed, as_alice, run_jobs,
                                                                         time_machine):
    start = timezone.now()
    time_machine.move_to(start, tick=False)
    hook = receiver(statuses=(503,))
    thread, _ = followed(hook)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()
    while Webhook.objects.get().disabled_at is None:
        time_machine.shift(timedelta(minutes=30))
        run_jobs()
        assert timezone.now() - start <= timedelta(hours=25)
    delivery = Delivery.objects.get()
    assert delivery.first_attempt_at + timedelta(hours=24) <= delivery.dropped_at
    assert delivery.attempts == len(hook.requests) and 8 <= delivery.attempts <= 40
    assert len({request["headers"]["webhook-id"] for request in hook.requests}) == 1
    [listed] = as_alice.get("/api/v1/webhooks").json()["items"]
    assert listed["disabled_at"] is not None and "503" in listed["disabled_reason"]
    as_alice.say("note", "Anyone there?", thread=thread)  # a disabled webhook gets nothing new
    run_jobs()
    assert Delivery.objects.count() == 1


def test_a_revoked_token_gets_no_delivery(receiver, followed, as_alice, alice, run_jobs, run_fan_outs):
    hook = receiver()
    thread, _ = followed(hook)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_fan_outs()  # the delivery is queued...
    token_revoke(Actor.for_operator("tests"), alice.pk)  # ...and the token revoked before it is sent
    run_jobs()
    assert hook.requests == []
    assert Delivery.objects.get().dropped_reason == "token may no longer read"


def test_a_token_that_may_no_longer_read_gets_no_delivery(receiver, followed, as_bob, alice, run_jobs):
    hook = receiver()
    thread, _ = followed(hook)
    token_update(Actor.for_operator("tests"), alice.pk, {"write"}, alice.label)
    as_bob.say("note", "More.", thread=thread)
    as_bob.say("defer", "Later.", thread=thread)
    run_jobs()
    assert hook.requests == [] and Delivery.objects.count() == 0  # no webhook of it is found


def test_a_name_that_resolves_to_a_private_address_at_delivery_is_a_failed_attempt(
        receiver, followed, as_alice, run_jobs, settings):
    hook = receiver()
    thread, _ = followed(hook)  # allowed at creation...
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = False  # ...not any more
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()
    delivery = Delivery.objects.get()
    assert hook.requests == [] and "non-public 127.0.0.1" in delivery.last_status
    assert delivery.next_attempt_at is not None


def test_deleting_a_webhook_drops_what_it_had_queued(receiver, followed, as_alice, run_fan_outs, run_jobs):
    hook = receiver()
    thread, created = followed(hook)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_fan_outs()
    as_alice.client.delete(f"/api/v1/webhooks/{created['id']}")
    run_jobs()
    assert hook.requests == [] and Delivery.objects.count() == 0


def test_a_host_name_is_sent_in_its_idna_form(receiver, as_bob, alice, make_webhook, run_jobs, monkeypatch):
    import socket

    hook = receiver()
    port = hook.server.server_address[1]
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *args, **kwargs: real(
        "127.0.0.1" if host == "xn--bcher-kva.example" else host, *args, **kwargs))
    make_webhook(alice, f"http://bücher.example:{port}/hook", ["inbox"])
    as_bob.ask()
    run_jobs()
    [request] = hook.requests
    assert request["headers"]["Host"] == f"xn--bcher-kva.example:{port}"
    assert Delivery.objects.get().delivered_at is not None


def test_a_fault_of_ours_in_an_attempt_is_a_failed_attempt_retried_and_shown(
        receiver, followed, as_alice, run_jobs, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    hook = receiver()
    thread, _ = followed(hook)
    Webhook.objects.update(sealed_secret="not sealed by any key")
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()  # and every job ended SUCCESSFUL: none failed unseen
    delivery, webhook = Delivery.objects.get(), Webhook.objects.get()
    assert hook.requests == [] and delivery.attempts == 1
    assert delivery.last_status == "failed on our side: InvalidToken"
    assert delivery.next_attempt_at is not None and webhook.failing_since is not None
    time_machine.shift(timedelta(seconds=10))
    run_jobs()
    assert Delivery.objects.get().attempts == 2


def test_a_delivery_deleted_during_its_attempt_is_gone(receiver, followed, as_alice, run_jobs, monkeypatch):
    from webhooks import sending

    hook = receiver()
    thread, created = followed(hook)
    real = sending.post

    def deleted_meanwhile(*args):
        failure = real(*args)
        as_alice.client.delete(f"/api/v1/webhooks/{created['id']}")  # while the receiver answered
        return failure
    monkeypatch.setattr(sending, "post", deleted_meanwhile)
    as_alice.say("answer", "Port 8000.", thread=thread)
    run_jobs()  # every job SUCCESSFUL
    assert len(hook.requests) == 1 and Delivery.objects.count() == 0


def test_no_log_shows_a_delivery_urls_query(receiver, as_bob, alice, make_webhook, run_jobs, caplog):
    caplog.set_level(logging.DEBUG)
    hook = receiver()
    make_webhook(alice, f"{hook.url}?key=s3cret-in-the-query", ["inbox"])
    as_bob.ask()
    run_jobs()
    assert hook.requests[0]["path"] == "/hook?key=s3cret-in-the-query"
    assert "s3cret" not in caplog.text
