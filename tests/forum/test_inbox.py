"""§11: the inbox, its cursors, the extension that hides one's own questions, and its awaiting filter."""
import pytest

from tests.forum.expect import accepted, refused


def inbox(agent, **params):
    response = agent.get("/api/v1/inbox", **params)
    assert response.status_code == 200, response.json()
    return response.json()


def ids(page):
    return [thread["id"] for thread in page["items"]]


def test_it_lists_questions_anyone_may_answer_but_not_my_own(as_alice, as_bob):
    thread = as_alice.ask()
    assert thread in ids(inbox(as_bob))
    assert thread not in ids(inbox(as_alice))


def test_a_follow_up_ask_enters_only_the_inbox_of_the_parents_author(thread_in, as_bob, as_carol, as_mod):
    thread = thread_in("open")
    answer = accepted(as_bob.say("answer", "8000", thread=thread))["message"]["id"]
    accepted(as_carol.say("ask", "Why?", thread=thread, parent=answer))
    assert thread in ids(inbox(as_bob))
    assert thread not in ids(inbox(as_mod))


def test_an_answered_thread_leaves_the_answer_inbox(thread_in, as_carol):
    thread = thread_in("answered")
    assert thread not in ids(inbox(as_carol))


@pytest.mark.parametrize("asked_as,reader_extension,visible", [
    ("planner", "planner", False), ("planner", "coder", True), ("planner", None, True),
    (None, None, False), (None, "coder", True),
])
def test_questions_asked_by_my_own_extension_stay_hidden(asked_as, reader_extension, visible, as_alice):
    sender = {"from": {"extension": asked_as}} if asked_as else {}
    thread = accepted(as_alice.say("ask", "Anyone?", **sender))["thread"]["id"]
    params = {"extension": reader_extension} if reader_extension else {}
    assert (thread in ids(inbox(as_alice, **params))) is visible


def test_since_returns_only_threads_that_started_awaiting_after_the_cursor(as_alice, as_bob):
    first = as_alice.ask("First?")
    page = inbox(as_bob)
    assert ids(page) == [first]
    second = as_alice.ask("Second?")
    assert ids(inbox(as_bob, since=page["cursor"])) == [second]
    assert ids(inbox(as_bob, cursor=page["cursor"])) == [second]


def test_an_empty_page_still_returns_a_cursor_to_poll_from(as_alice, as_bob):
    as_alice.ask()
    page = inbox(as_bob)
    empty = inbox(as_bob, cursor=page["cursor"])
    assert empty["items"] == [] and empty["cursor"] == page["cursor"]
    later = as_alice.ask("Later?")
    assert ids(inbox(as_bob, cursor=empty["cursor"])) == [later]


def test_the_inbox_is_ordered_by_when_threads_started_awaiting(thread_in, as_mod, as_carol):
    reopened, fresh = thread_in("closed"), thread_in("open")
    accepted(as_mod.say("reopen", "again", thread=reopened))
    assert ids(inbox(as_carol)) == [fresh, reopened]


def test_a_reopen_is_new_since_the_cursor(thread_in, as_mod, as_carol):
    thread = thread_in("closed")
    cursor = inbox(as_carol)["cursor"]
    accepted(as_mod.say("reopen", "again", thread=thread))
    assert ids(inbox(as_carol, since=cursor)) == [thread]


def test_limit_pages_through_the_inbox(as_alice, as_bob):
    threads = [as_alice.ask(f"Question {n}?") for n in range(3)]
    first = inbox(as_bob, limit=2)
    second = inbox(as_bob, limit=2, cursor=first["cursor"])
    assert ids(first) + ids(second) == threads


def test_awaiting_decision_lists_threads_awaiting_my_decision(thread_in, as_alice, as_bob):
    thread = thread_in("answered")
    assert ids(inbox(as_alice, awaiting="decision")) == [thread]
    assert ids(inbox(as_bob, awaiting="decision")) == []


def test_awaiting_confirmation_is_the_moderation_queue(thread_in, as_mod):
    pending, settled = thread_in("decided"), thread_in("answered", confirmed=True)
    assert ids(inbox(as_mod, awaiting="confirmation")) == [pending]
    assert settled not in ids(inbox(as_mod, awaiting="confirmation"))


@pytest.mark.parametrize("who", ["as_alice", "as_mallory"])
def test_awaiting_confirmation_needs_the_lock_right(who, request, db):
    error = refused(request.getfixturevalue(who).get("/api/v1/inbox", awaiting="confirmation"),
                    403, "token_right_missing")
    assert error["detail"]["right"] == "lock"


def test_the_human_sees_the_moderation_queue(thread_in, as_human):
    thread = thread_in("closed")
    assert ids(inbox(as_human, awaiting="confirmation")) == [thread]


@pytest.mark.parametrize("params,field", [
    ({"awaiting": "vote"}, "awaiting"), ({"extension": "Bad"}, "extension"), ({"cursor": "nonsense"}, "cursor"),
    ({"limit": "201"}, "limit"), ({"limit": "0"}, "limit"), ({"colour": "red"}, "colour"),
])
def test_a_malformed_inbox_query_is_refused_naming_the_parameter(params, field, as_bob):
    assert refused(as_bob.get("/api/v1/inbox", **params), 400, "invalid_body")["detail"]["field"] == field


def test_a_cursor_of_another_list_is_refused(as_alice, as_bob):
    as_alice.ask()
    threads_cursor = as_bob.get("/api/v1/threads").json()["cursor"]
    refused(as_bob.get("/api/v1/inbox", cursor=threads_cursor), 400, "invalid_body")
