"""§17 `redact`: a lock holder or the human erases a message; it keeps its place, reads body "" with
`redacted`, and the thread records a `redact` event without changing its state or what it awaits."""
import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType

from forum.models import IdempotencyRecord, Thread
from tests.forum.expect import accepted, nothing_stored, refused

REASON = "It held a database password."
PROOF = [{"kind": "url", "ref": "https://example.org/leak", "note": "where the leak is"}]


def redact(agent, message, **body):
    return agent.post(f"/api/v1/messages/{message}/redact", body)


@pytest.fixture
def answered(thread_in, as_bob):
    """(thread, answer id): bob's answer, which carries provenance, on alice's thread."""
    thread = thread_in("open")
    response = as_bob.say("answer", "The password is hunter2.", thread=thread,
                          provenance={"model": "m-1", "client": "c-1"})
    return thread, accepted(response)["message"]["id"]


def message_of(agent, message):
    return accepted(agent.get(f"/api/v1/messages/{message}"), 200)["message"]


# --- the answer and the event ----------------------------------------------------------------------------

def test_redact_answers_200_with_the_write_shape_the_message_empty_and_redacted(answered, as_mod):
    thread, answer = answered
    body = accepted(redact(as_mod, answer, reason=REASON), 200)
    assert set(body) == {"message", "thread"}
    message = body["message"]
    assert (message["id"], message["body"], message["provenance"]) == (answer, "", None)
    assert message["redacted"]["by"] == as_mod.identity
    assert message["redacted"]["at"] == body["thread"]["updated_at"]
    assert body["thread"]["id"] == thread


def test_redact_records_a_redact_event_from_and_to_the_current_state_with_the_reason(answered, as_mod, events_of):
    thread, answer = answered
    accepted(redact(as_mod, answer, reason=REASON), 200)
    event = events_of(thread)[-1]
    assert (event["label"], event["from_state"], event["to_state"], event["message"], event["note"]) == (
        "redact", "answered", "answered", answer, REASON)
    assert (event["actor"], event["origin"], event["confirmed_by"]) == (as_mod.identity, "llm", as_mod.identity)


def test_a_redact_without_reason_has_a_null_note(answered, as_mod, events_of):
    thread, answer = answered
    accepted(redact(as_mod, answer), 200)
    assert events_of(thread)[-1]["note"] is None


def test_redact_changes_neither_the_state_nor_awaiting(answered, as_mod, read_thread):
    thread, answer = answered
    before = read_thread(thread)
    after = accepted(redact(as_mod, answer), 200)["thread"]
    unchanged = ("state", "state_origin", "state_confirmed_at", "state_confirmed_by", "awaiting", "message_count")
    assert {name: after[name] for name in unchanged} == {name: before[name] for name in unchanged}


def test_the_human_redacts_too(answered, as_human):
    _, answer = answered
    assert accepted(redact(as_human, answer), 200)["message"]["redacted"]["by"] == "human:hannah"


def test_a_locked_thread_can_still_be_redacted(thread_in, as_mod, as_bob, read_thread):
    thread = thread_in("closed", confirmed=True)
    answer = next(m for m in as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["replies"]
                  if m["kind"] == "answer")["id"]
    accepted(redact(as_mod, answer), 200)
    assert (read_thread(thread)["state"], read_thread(thread)["state_confirmed_by"]) == ("closed", as_mod.identity)


# --- refusals ---------------------------------------------------------------------------------------------

def test_redacting_twice_is_invalid_transition_and_stores_nothing(answered, as_mod):
    _, answer = answered
    accepted(redact(as_mod, answer), 200)
    with nothing_stored():
        refused(redact(as_mod, answer, reason="again"), 409, "invalid_transition", message_id=answer)


@pytest.mark.parametrize("who", ["as_alice", "as_mallory"])
def test_redact_without_lock_is_token_right_missing_and_stores_nothing(who, answered, request):
    _, answer = answered
    agent = request.getfixturevalue(who)
    with nothing_stored():
        refused(redact(agent, answer), 403, "token_right_missing", right="lock")


@pytest.mark.parametrize("ref", ["msg_999999", "999999", "nonsense", "th_1"])
def test_redacting_an_unknown_message_is_not_found_and_stores_nothing(ref, answered, as_mod):
    with nothing_stored():
        refused(redact(as_mod, ref), 404, "not_found", object="message")


@pytest.mark.parametrize("body", [{"reason": ""}, {"reason": "x" * 501}, {"reason": 1}, {"reason": None},
                                  {"body": "why"}])
def test_a_bad_redact_body_is_invalid_body_and_stores_nothing(body, answered, as_mod):
    _, answer = answered
    field = next(iter(body))
    with nothing_stored():
        refused(as_mod.post(f"/api/v1/messages/{answer}/redact", body), 400, "invalid_body", field=field)


def test_a_bad_reason_is_refused_before_the_missing_right(answered, as_alice):
    _, answer = answered
    with nothing_stored():
        refused(redact(as_alice, answer, reason=""), 400, "invalid_body", field="reason")


def test_the_missing_right_is_refused_before_an_unknown_message(as_alice):
    refused(redact(as_alice, "msg_999999"), 403, "token_right_missing", right="lock")


# --- reads after the redaction ----------------------------------------------------------------------------

def test_the_message_keeps_its_place_and_reads_empty_everywhere(answered, as_mod, as_bob):
    thread, answer = answered
    first = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    stamp = accepted(redact(as_mod, answer), 200)["message"]["redacted"]
    tree = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"]
    [node] = tree[0]["replies"]
    flat = as_bob.get(f"/api/v1/threads/{thread}", after=first).json()["messages"]
    for seen in (node, flat[0], message_of(as_bob, answer)):
        assert (seen["id"], seen["parent"], seen["body"], seen["provenance"], seen["redacted"]) == (
            answer, first, "", None, stamp)


def test_other_messages_read_redacted_null(answered, as_mod, as_bob):
    thread, answer = answered
    accepted(redact(as_mod, answer), 200)
    first = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]
    assert first["redacted"] is None and first["body"]


def test_redacting_the_opening_message_makes_the_title_redacted_everywhere(as_alice, as_bob, as_mod):
    thread = as_alice.ask("Is the token abc-secret-123 still valid?")
    opening = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    assert accepted(redact(as_mod, opening), 200)["thread"]["title"] == "(redacted)"
    assert as_bob.get(f"/api/v1/threads/{thread}").json()["thread"]["title"] == "(redacted)"
    [listed] = as_bob.get("/api/v1/threads").json()["items"]
    [waiting] = as_bob.get("/api/v1/inbox").json()["items"]
    assert listed["title"] == waiting["title"] == "(redacted)"


def test_redacting_a_reply_keeps_the_title(answered, as_mod, read_thread):
    thread, answer = answered
    title = read_thread(thread)["title"]
    assert accepted(redact(as_mod, answer), 200)["thread"]["title"] == title


def test_a_redacted_text_is_found_by_no_search(as_alice, as_bob, as_mod):
    thread = as_alice.ask("Where is the key zebra-quartz-42?")
    as_bob.say("answer", "zebra-quartz-42 is in the vault.", thread=thread)
    tree = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"]
    for message in (tree[0]["replies"][0]["id"], tree[0]["id"]):
        accepted(redact(as_mod, message), 200)
    assert as_bob.get("/api/v1/threads", q="zebra-quartz").json()["items"] == []


def test_a_pending_proposal_stays_the_one_confirm_binds(thread_in, as_mod, as_bob, events_of, read_thread):
    """The redact event is not a state change: confirm still stamps the proposal, dismiss still restores."""
    thread = thread_in("closed")
    close = events_of(thread)[-1]
    accepted(redact(as_mod, close["message"]), 200)
    accepted(as_mod.post(f"/api/v1/threads/{thread}/confirm"), 200)
    stamped = next(event for event in events_of(thread) if event["id"] == close["id"])
    assert stamped["confirmed_by"] == as_mod.identity
    assert read_thread(thread)["state"] == "closed"


def test_a_dismiss_after_a_redaction_returns_to_the_last_confirmed_state(thread_in, as_mod, events_of, read_thread):
    thread = thread_in("answered")
    accepted(redact(as_mod, events_of(thread)[-1]["message"]), 200)
    assert accepted(as_mod.post(f"/api/v1/threads/{thread}/dismiss"), 200)["thread"]["state"] == "open"


# --- what the redaction erases beside the message ---------------------------------------------------------

def test_a_redacted_assert_leaves_its_claim_with_an_empty_statement_and_no_proofs(thread_in, as_bob, as_carol, as_mod):
    thread = thread_in("open")
    asserted = accepted(as_bob.say("assert", "The key is k-77.", thread=thread, proof=PROOF))
    claim = asserted["claim"]["id"]
    accepted(as_carol.say("attest", "Seen it.", thread=thread, claim=claim, proof=PROOF))
    stamp = accepted(redact(as_mod, asserted["message"]["id"]), 200)["message"]["redacted"]
    read = accepted(as_carol.get(f"/api/v1/claims/{claim}"), 200)["claim"]
    assert (read["statement"], read["proofs"], read["redacted"], read["state"]) == ("", [], stamp, "supported")
    assert accepted(as_carol.get("/api/v1/claims", thread=thread), 200)["items"][0]["redacted"] == stamp


def test_a_redacted_attest_leaves_its_attestation_without_proof(thread_in, as_bob, as_carol, as_mod):
    thread = thread_in("open")
    claim = accepted(as_bob.say("assert", "Port 8000.", thread=thread))["claim"]["id"]
    attest = accepted(as_carol.say("attest", "Seen it.", thread=thread, claim=claim, proof=PROOF))
    accepted(redact(as_mod, attest["message"]["id"]), 200)
    read = accepted(as_carol.get(f"/api/v1/claims/{claim}"), 200)["claim"]
    assert (read["statement"], read["redacted"]) == ("Port 8000.", None)
    assert [attestation["proof"] for attestation in read["attestations"]] == [[]]


def test_stored_answers_that_held_the_message_are_deleted(answered, as_bob, as_carol, as_mod):
    thread, answer = answered
    accepted(as_carol.say("note", "Noted.", thread=thread, parent=answer), 201)
    keyed = as_bob.post(body={"kind": "note", "body": "hunter2 again", "thread": thread},
                        HTTP_IDEMPOTENCY_KEY="note-1")
    kept = as_carol.post(body={"kind": "note", "body": "Unrelated.", "thread": thread},
                         HTTP_IDEMPOTENCY_KEY="note-2")
    accepted(redact(as_mod, accepted(keyed)["message"]["id"]), 200)
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["note-2"]
    assert accepted(kept)["message"]["body"] == "Unrelated."


def test_stored_answers_showing_a_redacted_title_are_deleted(as_alice, as_bob, as_mod):
    opened = as_alice.post(body={"kind": "ask", "body": "Is pw-9 right?"}, HTTP_IDEMPOTENCY_KEY="ask-1")
    thread = accepted(opened)["thread"]["id"]
    as_bob.post(body={"kind": "answer", "body": "Yes.", "thread": thread}, HTTP_IDEMPOTENCY_KEY="answer-1")
    other = as_bob.post(body={"kind": "ask", "body": "Another?"}, HTTP_IDEMPOTENCY_KEY="ask-2")
    accepted(other)
    accepted(redact(as_mod, accepted(opened)["message"]["id"]), 200)
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["ask-2"]


def test_a_retry_after_the_redaction_of_its_answer_is_judged_afresh(answered, as_bob, as_mod):
    thread, _ = answered
    envelope = {"kind": "note", "body": "Oops, leaked.", "thread": thread}
    first = accepted(as_bob.post(body=envelope, HTTP_IDEMPOTENCY_KEY="retry-1"))["message"]["id"]
    accepted(redact(as_mod, first), 200)
    again = accepted(as_bob.post(body=envelope, HTTP_IDEMPOTENCY_KEY="retry-1"))["message"]
    assert again["id"] != first and again["body"] == "Oops, leaked."


def test_console_log_entries_about_it_are_blanked(as_alice, as_mod, human):
    thread = as_alice.ask("Is the secret moonbeam-88 right?")
    row = Thread.objects.get(pk=int(thread.removeprefix("th_")))
    about_thread = LogEntry.objects.log_actions(human.pk, [row], CHANGE, change_message="Looked at it.", single_object=True)
    mention = LogEntry.objects.create(user=human, content_type=ContentType.objects.get_for_model(human),
                                      object_id=str(human.pk), object_repr=str(human), action_flag=CHANGE,
                                      change_message="Told hannah: Is the secret moonbeam-88 right?")
    unrelated = LogEntry.objects.log_actions(human.pk, [human], CHANGE, change_message="Nothing secret.",
                                             single_object=True)
    accepted(redact(as_mod, f"msg_{row.first_message_id}"), 200)
    for entry in (about_thread, mention, unrelated):
        entry.refresh_from_db()
    assert (about_thread.object_repr, about_thread.change_message) == (f"{thread} (redacted)", "")
    assert (mention.object_repr, mention.change_message) == ("(redacted)", "")
    assert (unrelated.object_repr, unrelated.change_message) == ("hannah", "Nothing secret.")


# --- counting and retries ---------------------------------------------------------------------------------

def test_redact_counts_as_a_write(low_limits, answered, as_mod):
    thread, answer = answered
    low_limits(writes_per_minute=1)
    accepted(redact(as_mod, answer), 200)
    with nothing_stored():
        refused(as_mod.post(f"/api/v1/threads/{thread}/dismiss"), 429, "rate_limited")


def test_a_rate_limited_redact_stores_nothing(low_limits, answered, as_mod):
    thread, answer = answered
    low_limits(writes_per_minute=1)
    accepted(as_mod.post(f"/api/v1/threads/{thread}/dismiss"), 200)
    with nothing_stored():
        refused(redact(as_mod, answer), 429, "rate_limited")


def test_the_human_is_not_rate_limited_in_redactions(low_limits, thread_in, as_bob, as_human):
    thread = thread_in("open")
    notes = [accepted(as_bob.say("note", f"note {n}", thread=thread))["message"]["id"] for n in range(3)]
    low_limits(writes_per_minute=1)
    for note in notes:
        accepted(redact(as_human, note), 200)


def test_a_keyed_redact_is_replayed_and_stores_nothing_new(answered, as_mod):
    _, answer = answered
    first = as_mod.post(f"/api/v1/messages/{answer}/redact", {"reason": REASON}, HTTP_IDEMPOTENCY_KEY="redact-1")
    with nothing_stored():
        again = as_mod.post(f"/api/v1/messages/{answer}/redact", {"reason": REASON}, HTTP_IDEMPOTENCY_KEY="redact-1")
    assert (again.status_code, again.json()) == (200, accepted(first, 200))


def test_the_openapi_document_describes_the_redact_route(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    post = schema["paths"]["/api/v1/messages/{ref}/redact"]["post"]
    assert post["operationId"] == "redact"
    assert set(post["requestBody"]["content"]["application/json"]["schema"]["properties"]) == {"reason"}
