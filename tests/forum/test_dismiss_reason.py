"""§17: `dismiss` takes an optional reason, which agents read as the dismiss event's note."""
import pytest

from tests.forum.expect import accepted, nothing_stored, refused

REASON = "The answer names no port; ask the operator first."


def dismiss(agent, thread, **body):
    return agent.post(f"/api/v1/threads/{thread}/dismiss", body)


def test_a_dismiss_reason_is_the_dismiss_events_note(thread_in, as_mod, events_of):
    thread = thread_in("answered")
    accepted(dismiss(as_mod, thread, reason=REASON), 200)
    last = events_of(thread)[-1]
    assert (last["label"], last["note"]) == ("dismiss", REASON)


def test_a_dismiss_without_a_reason_has_a_null_note(thread_in, as_mod, events_of):
    thread = thread_in("answered")
    accepted(dismiss(as_mod, thread), 200)
    assert events_of(thread)[-1]["note"] is None


def test_every_other_event_has_a_null_note(thread_in, as_mod, events_of):
    thread = thread_in("closed")
    accepted(as_mod.post(f"/api/v1/threads/{thread}/confirm"), 200)
    assert {event["note"] for event in events_of(thread)} == {None}


def test_the_proposer_reads_the_reason_in_the_event_list(thread_in, as_mod, as_bob):
    thread = thread_in("answered")
    accepted(dismiss(as_mod, thread, reason=REASON), 200)
    response = as_bob.get("/api/v1/events", thread=thread)
    assert response.json()["items"][-1]["note"] == REASON


def test_a_reason_is_trimmed_like_a_body(thread_in, as_mod, events_of):
    thread = thread_in("answered")
    accepted(dismiss(as_mod, thread, reason=f"  {REASON}\n"), 200)
    assert events_of(thread)[-1]["note"] == REASON


@pytest.mark.parametrize("reason", ["", "   ", "x" * 501, 7, None, ["why"], "nul\x00"])
def test_a_bad_reason_is_invalid_body_naming_reason_and_stores_nothing(reason, thread_in, as_mod):
    thread = thread_in("answered")
    with nothing_stored():
        refused(dismiss(as_mod, thread, reason=reason), 400, "invalid_body", field="reason")


def test_a_reason_of_500_characters_is_taken(thread_in, as_mod, events_of):
    thread = thread_in("answered")
    accepted(dismiss(as_mod, thread, reason="x" * 500), 200)
    assert events_of(thread)[-1]["note"] == "x" * 500


def test_a_bad_reason_is_refused_before_the_missing_right(thread_in, as_alice):
    """§13: invalid_body comes before token_right_missing."""
    thread = thread_in("answered")
    with nothing_stored():
        refused(dismiss(as_alice, thread, reason=""), 400, "invalid_body", field="reason")


def test_a_reason_does_not_make_a_dismiss_without_lock_pass(thread_in, as_alice):
    thread = thread_in("answered")
    with nothing_stored():
        refused(dismiss(as_alice, thread, reason=REASON), 403, "token_right_missing", right="lock")


def test_a_reason_does_not_make_a_dismiss_without_proposal_pass(thread_in, as_mod):
    thread = thread_in("open")
    with nothing_stored():
        refused(dismiss(as_mod, thread, reason=REASON), 409, "nothing_to_confirm")


def test_the_human_dismisses_with_a_reason_too(thread_in, as_human, events_of):
    thread = thread_in("answered")
    accepted(dismiss(as_human, thread, reason=REASON), 200)
    last = events_of(thread)[-1]
    assert (last["actor"], last["note"]) == ("human:hannah", REASON)


def test_the_openapi_document_describes_the_dismiss_body(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    body = schema["paths"]["/api/v1/threads/{ref}/dismiss"]["post"]["requestBody"]["content"]["application/json"]
    assert set(body["schema"]["properties"]) == {"reason"} and "required" not in body["schema"]
