"""read_thread with `after` (Parley v1 §17): the messages of a thread since one of its own, flat, so a
participant follows a thread without re-reading its tree."""
from tests.forum.expect import accepted, refused


def said(agent, kind, thread, body="text", **fields):
    return accepted(agent.say(kind, body, thread=thread, **fields))["message"]["id"]


def test_after_answers_the_later_messages_flat_in_creation_order(as_alice, as_bob, as_carol):
    thread = as_alice.ask("Who follows?")
    first = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    answer = said(as_bob, "answer", thread)
    reply = said(as_carol, "note", thread, parent=answer)
    later = said(as_alice, "note", thread, parent=answer)
    body = as_bob.get(f"/api/v1/threads/{thread}", after=first).json()
    assert [message["id"] for message in body["messages"]] == [answer, reply, later]
    assert [message["parent"] for message in body["messages"]] == [first, answer, answer]
    assert all("replies" not in message for message in body["messages"])
    assert body["thread"]["message_count"] == 4


def test_after_the_last_message_answers_no_messages(as_alice, as_bob):
    thread = as_alice.ask("Anything new?")
    last = said(as_bob, "note", thread)
    assert as_bob.get(f"/api/v1/threads/{thread}", after=last).json()["messages"] == []


def test_after_answers_at_most_page_size_max_and_continues_after_the_last(as_alice, as_bob, as_carol,
                                                                          low_limits):
    thread = as_alice.ask("A long thread?")
    notes = [said(as_bob if index % 2 else as_carol, "note", thread, f"note {index}") for index in range(5)]
    root = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    low_limits(page_size_max=3)
    page = as_bob.get(f"/api/v1/threads/{thread}", after=root).json()["messages"]
    assert [message["id"] for message in page] == notes[:3]
    rest = as_bob.get(f"/api/v1/threads/{thread}", after=page[-1]["id"]).json()["messages"]
    assert [message["id"] for message in rest] == notes[3:]


def test_after_takes_the_bare_number_too(as_alice, as_bob):
    thread = as_alice.ask("Bare?")
    root = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    note = said(as_bob, "note", thread)
    messages = as_bob.get(f"/api/v1/threads/{thread}", after=root.removeprefix("msg_")).json()["messages"]
    assert [message["id"] for message in messages] == [note]


def test_after_an_unknown_message_is_not_found(as_alice, as_bob):
    thread = as_alice.ask("After what?")
    error = refused(as_bob.get(f"/api/v1/threads/{thread}", after="msg_999999"), 404, "not_found")
    assert error["detail"]["object"] == "message"


def test_after_a_message_of_another_thread_is_invalid_body_naming_after(as_alice, as_bob):
    thread, other = as_alice.ask("This one?"), as_alice.ask("That one?")
    elsewhere = as_bob.get(f"/api/v1/threads/{other}").json()["messages"][0]["id"]
    error = refused(as_bob.get(f"/api/v1/threads/{thread}", after=elsewhere), 400, "invalid_body")
    assert error["detail"]["field"] == "after"


def test_a_malformed_after_is_invalid_body_naming_after(as_alice, as_bob):
    thread = as_alice.ask("Malformed?")
    error = refused(as_bob.get(f"/api/v1/threads/{thread}", after="th_1"), 400, "invalid_body")
    assert error["detail"]["field"] == "after"


def test_an_unknown_thread_is_not_found_before_after_is_looked_at(as_bob, db):
    error = refused(as_bob.get("/api/v1/threads/th_999999", after="msg_999999"), 404, "not_found")
    assert error["detail"]["object"] == "thread"


def test_after_needs_the_read_right(as_alice, make_token, agent):
    thread = as_alice.ask("Readable?")
    root = as_alice.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    blind = agent(make_token("blind", rights=("write",)))
    error = refused(blind.get(f"/api/v1/threads/{thread}", after=root), 403, "token_right_missing")
    assert error["detail"]["right"] == "read"


def test_following_costs_a_fixed_number_of_queries(as_alice, as_bob, as_carol, django_assert_max_num_queries):
    thread = as_alice.ask("Counted?")
    root = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    for index in range(6):
        said(as_bob if index % 2 else as_carol, "note", thread, f"note {index}")
    with django_assert_max_num_queries(4):  # token, thread, the message after which, the page
        assert len(as_bob.get(f"/api/v1/threads/{thread}", after=root).json()["messages"]) == 6
