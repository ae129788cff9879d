"""The admin's thread page: the conversation as a tree, its history, and posting as the human."""
import pytest

from forum.models import Message, StateEvent
from tests.console.console import number, reports, thread_of, thread_url


@pytest.fixture
def conversation(as_alice, as_bob, as_carol):
    """alice asks (m1); bob answers m1 (m2); carol notes on m1 (m3); alice follows up on m2 (m4)."""
    ref = as_alice.ask("Which database?")
    first = thread_of(ref).first_message_id
    answer = as_bob.say("answer", "PostgreSQL", thread=ref).json()["message"]["id"]
    as_carol.say("note", "Mind the licence.", thread=ref, parent=f"msg_{first}")
    as_alice.say("ask", "Which version?", thread=ref, parent=answer)
    return ref


def test_the_thread_page_shows_the_tree_indented_by_parent_in_creation_order(console, conversation):
    response = console.get(thread_url(conversation))

    outline = response.context["outline"]
    assert [(message.kind, message.depth) for message in outline] == [
        ("ask", 0), ("answer", 1), ("ask", 2), ("note", 1)]
    html = response.content.decode()
    assert html.index("Which version?") < html.index("Mind the licence.")
    assert f'style="--depth: 2" id="msg_{outline[2].pk}"' in html


def test_the_thread_page_shows_lock_holders_as_ki_label_humans_by_name_extensions_and_provenance(
        console, as_alice, as_mod, open_thread):
    as_alice.say("note", "From the planner.", thread=open_thread, **{"from": {"extension": "planner"}},
                 provenance={"model": "model-x", "client": "cli-y"})
    as_mod.say("note", "Moderator here.", thread=open_thread)
    console.post(thread_url(open_thread, "post"), {"kind": "note", "body": "A human here."})

    html = console.get(thread_url(open_thread)).content.decode()

    assert "KI · Moderator" in html
    assert "<strong>human:mia</strong>" in html
    assert "/ planner" in html
    assert "model = model-x; client = cli-y" in html


def test_the_thread_page_shows_the_event_history_with_origin_and_confirmation(console, proposed_close):
    before = console.get(thread_url(proposed_close)).context["history"]
    console.post(thread_url(proposed_close, "settle"), {"operation": "confirm"})
    after = console.get(thread_url(proposed_close))

    assert [(event.label, event.origin, event.confirmed_by) for event in before] == [
        ("ask", "llm", "ainotes:alice"), ("answer", "llm", ""), ("close", "llm", "")]
    assert [(event.label, event.origin, event.confirmed_by) for event in after.context["history"]][-2:] == [
        ("close", "llm", "human:mia"), ("confirm", "user", "human:mia")]
    assert "unconfirmed" in after.content.decode()  # bob's answer stays a proposal in the record


@pytest.mark.parametrize("kind, start, state", [
    ("note", "open_thread", "open"),
    ("answer", "open_thread", "answered"),
    ("decide", "answered_thread", "decided"),
    ("close", "answered_thread", "closed"),
    ("reopen", "confirmed_close", "open"),
])
def test_a_moderator_posts_as_the_human_from_the_thread_page(console, request, kind, start, state):
    ref = request.getfixturevalue(start)

    response = console.post(thread_url(ref, "post"), {"kind": kind, "body": f"Human {kind}."})

    assert response.status_code == 302 and response.url == thread_url(ref)
    message = Message.objects.filter(thread_id=number(ref)).latest("id")
    assert (message.kind, message.body, message.author_identity, message.author_kind) == (
        kind, f"Human {kind}.", "human:mia", "user")
    thread = thread_of(ref)
    assert (thread.state, thread.is_pending) == (state, False)


def test_a_human_post_may_name_its_parent(console, conversation):
    parent = thread_of(conversation).last_message_id

    console.post(thread_url(conversation, "post"), {"kind": "answer", "body": "Version 15.", "parent": parent})

    assert Message.objects.filter(thread_id=number(conversation)).latest("id").parent_id == parent


@pytest.mark.parametrize("form, reason", [
    ({"kind": "note", "body": "x" * 501}, "invalid_body"),
    ({"kind": "note", "body": "  "}, "invalid_body"),
    ({"kind": "shout", "body": "Hello"}, "invalid_body"),
    ({"kind": "note", "body": "Hello", "parent": "msg_999999"}, "not_found"),
    ({"kind": "close", "body": "Too early."}, "invalid_transition"),
])
def test_a_refused_post_shows_the_reason_keeps_the_text_and_stores_nothing(console, open_thread, form, reason):
    count = Message.objects.count()

    response = console.post(thread_url(open_thread, "post"), form)

    assert response.status_code == 200
    [(level, text)] = reports(response)
    assert level == "error" and text.startswith(f"Thread {open_thread}: refused — {reason}: ")
    assert response.context["post_form"]["body"].value() == form["body"]
    assert Message.objects.count() == count


def test_a_foreign_parent_is_refused_as_invalid_body(console, open_thread, answered_thread):
    foreign = thread_of(answered_thread).first_message_id

    response = console.post(thread_url(open_thread, "post"), {"kind": "note", "body": "Hi", "parent": foreign})

    assert reports(response)[0][1].startswith(f"Thread {open_thread}: refused — invalid_body: ")


def test_the_confirm_button_confirms_as_the_human(console, proposed_close):
    response = console.post(thread_url(proposed_close, "settle"), {"operation": "confirm"}, follow=True)

    assert reports(response) == [
        ("success", f"Thread {proposed_close}: confirmed; the thread is closed (confirmed by human:mia)")]
    event = StateEvent.objects.filter(thread_id=number(proposed_close)).latest("id")
    assert (event.label, event.origin, event.actor) == ("confirm", "user", "human:mia")


def test_the_dismiss_button_without_a_proposal_is_refused_with_nothing_to_confirm(console, open_thread):
    events = StateEvent.objects.count()

    response = console.post(thread_url(open_thread, "settle"), {"operation": "dismiss"}, follow=True)

    assert reports(response)[0][1].startswith(f"Thread {open_thread}: refused — nothing_to_confirm: ")
    assert StateEvent.objects.count() == events


def test_an_unknown_settle_operation_is_a_bad_request(console, proposed_close):
    response = console.post(thread_url(proposed_close, "settle"), {"operation": "approve"})

    assert response.status_code == 400
    assert thread_of(proposed_close).is_pending


def test_the_pending_proposal_is_shown_with_its_proposer_and_buttons(console, proposed_close):
    html = console.get(thread_url(proposed_close)).content.decode()

    assert "Pending proposal: closed by ainotes:alice" in html
    assert 'value="confirm"' in html and 'value="dismiss"' in html


def test_the_thread_page_reads_in_a_bounded_number_of_queries(console, conversation,
                                                              django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        assert console.get(thread_url(conversation)).status_code == 200
