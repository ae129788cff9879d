"""Changelist actions: each calls a service as human:<username>; refusals carry the API's reason."""
import pytest

from forum.models import Message, StateEvent
from tests.console.console import apply_mark, reports, run_action, thread_of


def stored(ref):
    """What a refused action must leave untouched: state, confirmation, messages and events."""
    thread = thread_of(ref)
    return (thread.state, thread.state_confirmed_at, thread.awaiting_act, thread.message_count,
            Message.objects.filter(thread=thread).count(), StateEvent.objects.filter(thread=thread).count())


def test_confirm_confirms_the_proposal_and_records_a_user_origin_confirmed_event(console, proposed_close):
    response = run_action(console, "confirm", [proposed_close])

    thread = thread_of(proposed_close)
    assert (thread.state, thread.is_pending, thread.state_confirmed_by) == ("closed", False, "human:mia")
    *_, proposal, confirmation = StateEvent.objects.filter(thread=thread).order_by("id")
    assert (proposal.label, proposal.origin, proposal.actor, proposal.confirmed_by) == (
        "close", "llm", "ainotes:alice", "human:mia")
    assert (confirmation.label, confirmation.origin, confirmation.actor, confirmation.confirmed_by) == (
        "confirm", "user", "human:mia", "human:mia")
    assert reports(response) == [
        ("success", f"Thread {proposed_close}: confirmed; the thread is closed (confirmed by human:mia)")]


def test_dismiss_returns_the_thread_to_its_last_confirmed_state(console, proposed_close):
    response = run_action(console, "dismiss", [proposed_close])

    thread = thread_of(proposed_close)
    # bob's `answered` was a proposal too, so the last confirmed state is the opening `open` (§8).
    assert (thread.state, thread.is_pending, thread.awaiting_act) == ("open", False, "answer")
    event = StateEvent.objects.filter(thread=thread).latest("id")
    assert (event.label, event.origin, event.actor, event.confirmed_by) == (
        "dismiss", "user", "human:mia", "human:mia")
    assert reports(response)[0][0] == "success"


@pytest.mark.parametrize("operation", ["confirm", "dismiss"])
def test_it_refuses_to_settle_a_thread_without_proposal_with_nothing_to_confirm(console, open_thread, operation):
    before = stored(open_thread)

    response = run_action(console, operation, [open_thread])

    assert response.status_code == 200
    [(level, text)] = reports(response)
    assert level == "error"
    assert text.startswith(f"Thread {open_thread}: refused — nothing_to_confirm: ")
    assert stored(open_thread) == before


def test_it_shows_the_same_reason_the_api_gives(console, as_mod, confirmed_close):
    api = as_mod.say("decide", "Decide anyway.", thread=confirmed_close)

    response = apply_mark(console, "decide", [confirmed_close], "Decide anyway.")

    error = api.json()["error"]
    assert (api.status_code, error["reason"]) == (409, "thread_locked")
    assert reports(response) == [("error", f"Thread {confirmed_close}: refused — thread_locked: {error['message']}")]


MARKS = [
    # (action kind, the thread it starts from, the state it leaves)
    ("decide", "open_thread", "decided"),
    ("close", "answered_thread", "closed"),
    ("close", "proposed_close", None),  # equal to the pending proposal: "use confirm"
    ("defer", "open_thread", "deferred"),
    ("obsolete", "proposed_close", "obsolete"),
    ("reject", "answered_thread", "rejected"),
    ("reopen", "confirmed_close", "open"),
]


@pytest.mark.parametrize("kind, start, state", [mark for mark in MARKS if mark[2]])
def test_a_mark_action_posts_a_confirmed_human_mark(console, request, kind, start, state):
    ref = request.getfixturevalue(start)

    response = apply_mark(console, kind, [ref], f"The moderator says {kind}.")

    thread = thread_of(ref)
    assert (thread.state, thread.state_origin, thread.is_pending, thread.state_confirmed_by) == (
        state, "user", False, "human:mia")
    message = Message.objects.filter(thread=thread).latest("id")
    assert (message.kind, message.body, message.author_identity, message.author_kind) == (
        kind, f"The moderator says {kind}.", "human:mia", "user")
    event = StateEvent.objects.filter(thread=thread).latest("id")
    assert (event.label, event.to_state, event.origin, event.actor, event.confirmed_by, event.message_id) == (
        kind, state, "user", "human:mia", "human:mia", message.pk)
    assert reports(response) == [
        ("success", f"Thread {ref}: {kind} posted as msg_{message.pk}; the thread is {state} (confirmed by human:mia)")]


@pytest.mark.parametrize("kind, start, reason", [
    ("close", "open_thread", "invalid_transition"),  # three steps at once (§9)
    ("close", "proposed_close", "invalid_transition"),
    ("reopen", "answered_thread", "invalid_transition"),
    ("decide", "confirmed_close", "thread_locked"),
])
def test_an_illegal_mark_is_refused_with_its_reason_and_changes_nothing(console, request, kind, start, reason):
    ref = request.getfixturevalue(start)
    before = stored(ref)

    response = apply_mark(console, kind, [ref], "Try it.")

    [(level, text)] = reports(response)
    assert level == "error" and text.startswith(f"Thread {ref}: refused — {reason}: ")
    assert stored(ref) == before


def test_a_mark_action_first_asks_for_its_body_with_a_default(console, answered_thread):
    before = stored(answered_thread)

    response = run_action(console, "mark_close", [answered_thread])

    assert response.status_code == 200
    assert response.templates[0].name == "admin/forum/thread/mark_action.html"
    assert response.context["form"]["body"].value() == "Closed by the moderator."
    assert stored(answered_thread) == before


@pytest.mark.parametrize("body", ["   ", "x" * 501])
def test_a_mark_action_with_a_bad_body_is_refused_as_invalid_body_and_posts_nothing(console, answered_thread,
                                                                                   body):
    before = stored(answered_thread)

    response = apply_mark(console, "close", [answered_thread], body)

    assert response.status_code == 200
    assert response.context["form"].errors["body"][0].startswith("invalid_body: ")
    assert stored(answered_thread) == before


def test_a_bulk_confirm_reports_each_thread(console, proposed_close, open_thread):
    response = run_action(console, "confirm", [proposed_close, open_thread])

    assert [level for level, _ in reports(response)] == ["success", "error"]
    assert reports(response)[0][1].startswith(f"Thread {proposed_close}: confirmed")
    assert reports(response)[1][1].startswith(f"Thread {open_thread}: refused — nothing_to_confirm")
    assert not thread_of(proposed_close).is_pending


def test_a_bulk_mark_posts_where_legal_and_reports_the_refusals(console, answered_thread, open_thread,
                                                                 confirmed_close):
    before = stored(open_thread), stored(confirmed_close)

    response = apply_mark(console, "close", [answered_thread, open_thread, confirmed_close], "Closing.")

    # The changelist orders by primary key: answered_thread, open_thread and confirmed_close were made in turn.
    texts = [text for _, text in reports(response)]
    assert [level for level, _ in reports(response)] == ["success", "error", "error"]
    assert f"Thread {answered_thread}: close posted as" in texts[0]
    assert texts[1].startswith(f"Thread {open_thread}: refused — invalid_transition")
    assert texts[2].startswith(f"Thread {confirmed_close}: refused — thread_locked")
    assert thread_of(answered_thread).state == "closed"
    assert (stored(open_thread), stored(confirmed_close)) == before


def test_a_human_mark_is_not_rate_limited(console, settings, open_thread, answered_thread):
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 1}

    response = apply_mark(console, "defer", [open_thread, answered_thread], "Later.")

    assert [level for level, _ in reports(response)] == ["success", "success"]
