"""§4.1 and §14.1: retries never double-post."""
import pytest

from forum.models import Message
from tests.forum.expect import accepted, nothing_stored, refused


def keyed(agent, key, **envelope):
    return agent.post(body=envelope, HTTP_IDEMPOTENCY_KEY=key)


def test_a_retry_with_the_same_key_replays_the_first_answer_and_stores_nothing(thread_in, as_bob):
    thread = thread_in("open")
    first = keyed(as_bob, "retry-1", kind="note", body="once", thread=thread)
    assert first.status_code == 201
    with nothing_stored():
        again = keyed(as_bob, "retry-1", kind="note", body="once", thread=thread)
    assert (again.status_code, again.json()) == (201, first.json())


def test_a_thread_opening_ask_is_not_opened_twice(as_alice):
    first = keyed(as_alice, "open-1", kind="ask", body="Once?")
    with nothing_stored():
        again = keyed(as_alice, "open-1", kind="ask", body="Once?")
    assert (again.status_code, again.json()) == (201, first.json())


def test_a_confirm_retried_with_its_key_is_replayed(thread_in, as_mod):
    thread = thread_in("decided")
    first = as_mod.post(f"/api/v1/threads/{thread}/confirm", HTTP_IDEMPOTENCY_KEY="confirm-1")
    assert first.status_code == 200
    with nothing_stored():
        again = as_mod.post(f"/api/v1/threads/{thread}/confirm", HTTP_IDEMPOTENCY_KEY="confirm-1")
    assert (again.status_code, again.json()) == (200, first.json())


def test_the_same_key_with_a_different_request_is_a_conflict(thread_in, as_bob):
    thread = thread_in("open")
    accepted(keyed(as_bob, "retry-1", kind="note", body="once", thread=thread))
    with nothing_stored():
        refused(keyed(as_bob, "retry-1", kind="note", body="twice", thread=thread), 409, "idempotency_conflict")


def test_the_same_key_on_another_operation_is_a_conflict(thread_in, as_mod):
    thread = thread_in("decided")
    accepted(keyed(as_mod, "k-1", kind="note", body="once", thread=thread))
    with nothing_stored():
        refused(as_mod.post(f"/api/v1/threads/{thread}/confirm", HTTP_IDEMPOTENCY_KEY="k-1"),
                409, "idempotency_conflict")


def test_keys_are_scoped_per_token(thread_in, as_bob, as_carol):
    thread = thread_in("open")
    mine = accepted(keyed(as_bob, "shared", kind="note", body="same words", thread=thread))
    theirs = accepted(keyed(as_carol, "shared", kind="note", body="same words", thread=thread))
    assert mine["message"]["id"] != theirs["message"]["id"]


@pytest.mark.parametrize("key", ["", "has space", "x" * 129, "ümlaut", "semi;colon"])
def test_a_malformed_key_is_refused_naming_the_header(key, thread_in, as_bob):
    thread = thread_in("open")
    with nothing_stored():
        error = refused(keyed(as_bob, key, kind="note", body="hi", thread=thread), 400, "invalid_body")
    assert error["detail"]["field"] == "Idempotency-Key"


def test_a_key_of_128_allowed_characters_is_accepted(thread_in, as_bob):
    thread = thread_in("open")
    accepted(keyed(as_bob, "aZ0._:-" * 18 + "ab", kind="note", body="hi", thread=thread))


def test_a_replay_is_answered_before_the_thread_lock(thread_in, as_carol, as_mod):
    thread = thread_in("answered")
    first = accepted(keyed(as_carol, "late-1", kind="note", body="before the close", thread=thread))
    accepted(as_mod.say("close", "done", thread=thread))
    assert accepted(keyed(as_carol, "late-1", kind="note", body="before the close", thread=thread)) == first


def test_a_replay_is_answered_before_the_rate_limit(low_limits, thread_in, as_bob):
    thread = thread_in("open")
    low_limits(writes_per_minute=1)
    first = accepted(keyed(as_bob, "r-1", kind="note", body="hi", thread=thread))
    assert accepted(keyed(as_bob, "r-1", kind="note", body="hi", thread=thread)) == first


def test_a_conflict_is_answered_before_the_body_is_judged(thread_in, as_bob):
    thread = thread_in("open")
    accepted(keyed(as_bob, "k-2", kind="note", body="hi", thread=thread))
    with nothing_stored():
        refused(keyed(as_bob, "k-2", kind="note", body="hi", thread=thread, colour="red"), 409, "idempotency_conflict")


def test_a_refused_keyed_write_is_judged_afresh_on_retry(low_limits, thread_in, as_bob):
    """Reading: only accepted writes are remembered; a refusal stored nothing, so a retry may succeed."""
    thread = thread_in("open")
    low_limits(writes_per_minute=1)
    accepted(as_bob.say("note", "uses the minute", thread=thread))
    refused(keyed(as_bob, "later", kind="note", body="hi", thread=thread), 429, "rate_limited")
    low_limits(writes_per_minute=5)
    accepted(keyed(as_bob, "later", kind="note", body="hi", thread=thread))


def test_a_revoked_token_is_refused_before_its_replay(thread_in, bob, agent):
    from forum.tokens import token_revoke
    from forum.actors import Actor

    thread = thread_in("open")
    accepted(keyed(agent(bob), "k-3", kind="note", body="hi", thread=thread))
    token_revoke(Actor.for_operator("tests"), bob.pk)
    refused(keyed(agent(bob), "k-3", kind="note", body="hi", thread=thread), 401, "token_invalid")


def test_reads_ignore_the_idempotency_header(thread_in, as_bob):
    thread = thread_in("open")
    response = as_bob.client.get(f"/api/v1/threads/{thread}", HTTP_IDEMPOTENCY_KEY="not a key")
    assert response.status_code == 200
    assert Message.objects.count() == 1


def test_a_key_is_remembered_for_24_hours_only(thread_in, as_bob, time_machine):
    from datetime import timedelta

    from django.utils import timezone

    thread = thread_in("open")
    now = timezone.now()
    time_machine.move_to(now - timedelta(hours=23, minutes=59))
    first = accepted(keyed(as_bob, "daily", kind="note", body="same", thread=thread))
    time_machine.move_to(now)
    assert accepted(keyed(as_bob, "daily", kind="note", body="same", thread=thread)) == first
    time_machine.move_to(now + timedelta(minutes=2))
    fresh = accepted(keyed(as_bob, "daily", kind="note", body="same", thread=thread))
    assert fresh["message"]["id"] != first["message"]["id"]


def test_expired_records_are_purged_on_the_write_path_oldest_first_a_bounded_batch_at_a_time(
        thread_in, as_bob, monkeypatch, time_machine, django_capture_on_commit_callbacks):
    from datetime import timedelta

    from django.utils import timezone

    from forum import idempotency
    from forum.models import IdempotencyRecord

    thread = thread_in("open")
    now = timezone.now()
    for hours in (27, 25, 26):
        time_machine.move_to(now - timedelta(hours=hours))
        accepted(keyed(as_bob, f"old-{hours}", kind="note", body=f"{hours} hours ago", thread=thread))
    time_machine.move_to(now)
    monkeypatch.setattr(idempotency, "PURGE_EVERY", 1)  # 64 in production: "occasionally"
    monkeypatch.setattr(idempotency, "PURGE_BATCH", 2)
    with django_capture_on_commit_callbacks(execute=True):
        accepted(keyed(as_bob, "fresh", kind="note", body="now", thread=thread))
    assert sorted(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh", "old-25"]
