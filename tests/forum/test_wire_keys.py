"""The wire keys of Parley v1 §12 that later issues fill in are answered already: an event's `message`
(the message that made it) and `note`, a message's `redacted`."""
from tests.forum.expect import accepted


def test_an_event_names_the_message_that_made_it(as_alice, as_bob, events_of):
    thread = as_alice.ask("Which message made the event?")
    answer = accepted(as_bob.say("answer", "This one.", thread=thread))["message"]["id"]
    opening, answered = events_of(thread)
    root = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    assert (opening["label"], opening["message"]) == ("ask", root)
    assert (answered["label"], answered["message"]) == ("answer", answer)


def test_a_confirm_or_dismiss_event_has_no_message(thread_in, as_mod, events_of):
    thread = thread_in("answered")
    accepted(as_mod.post(f"/api/v1/threads/{thread}/confirm"), 200)
    assert events_of(thread)[-1]["label"] == "confirm" and events_of(thread)[-1]["message"] is None


def test_a_claims_event_names_the_message_that_moved_it(as_alice, as_bob, events_of):
    thread = as_alice.ask("Is a claim an event?")
    posted = accepted(as_bob.say("assert", "It is.", thread=thread))
    claim_event = next(event for event in events_of(thread) if event["claim"])
    assert claim_event["message"] == posted["message"]["id"]


def test_every_event_carries_a_note_that_is_null_without_a_reason(thread_in, events_of):
    events = events_of(thread_in("decided"))
    assert events and all("note" in event and event["note"] is None for event in events)


def test_every_message_carries_redacted_null_until_redacted(as_alice, as_bob):
    thread = as_alice.ask("Redacted?")
    posted = accepted(as_bob.say("note", "Not yet.", thread=thread))
    assert posted["message"]["redacted"] is None
    tree = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"]
    assert tree[0]["redacted"] is None and tree[0]["replies"][0]["redacted"] is None
