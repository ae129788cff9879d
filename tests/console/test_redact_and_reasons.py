"""The console's doors to §17: a dismiss with a reason from the thread page, and the redaction of a message
through a confirmation page with an optional reason, both as human:<username>, judged as over the API."""
import pytest
from django.urls import reverse

from forum.models import Message, StateEvent
from tests.console.console import number, reports, thread_of, thread_url
from tests.forum.expect import nothing_stored

REASON = "It leaked a password."


def redact_url(ref, message_id):
    return reverse("admin:forum_thread_redact", args=[number(ref), message_id])


@pytest.fixture
def answer_of(as_bob):
    def answer(ref, body="The password is hunter2."):
        return int(as_bob.say("answer", body, thread=ref).json()["message"]["id"].removeprefix("msg_"))
    return answer


# --- dismiss with a reason --------------------------------------------------------------------------------

def test_the_dismiss_button_takes_a_reason_shown_as_the_events_note(console, proposed_close):
    response = console.post(thread_url(proposed_close, "settle"), {"operation": "dismiss", "reason": REASON},
                            follow=True)
    assert reports(response)[0][0] == "success"
    event = StateEvent.objects.filter(thread_id=number(proposed_close)).latest("id")
    assert (event.label, event.actor, event.note) == ("dismiss", "human:mia", REASON)
    assert f"reason: {REASON}" in console.get(thread_url(proposed_close)).content.decode()


def test_a_dismiss_with_an_empty_reason_has_none(console, proposed_close):
    console.post(thread_url(proposed_close, "settle"), {"operation": "dismiss", "reason": ""})
    assert StateEvent.objects.filter(thread_id=number(proposed_close)).latest("id").note == ""


def test_a_too_long_dismiss_reason_is_refused_as_over_the_api_and_stores_nothing(console, proposed_close):
    with nothing_stored():
        response = console.post(thread_url(proposed_close, "settle"), {"operation": "dismiss", "reason": "x" * 501},
                                follow=True)
    [(level, text)] = reports(response)
    assert level == "error" and text.startswith(f"Thread {proposed_close}: refused — invalid_body: ")
    assert "field=reason" in text


# --- redact -----------------------------------------------------------------------------------------------

def test_each_message_has_a_redact_link_for_moderators_only(console, reader_console, open_thread, answer_of):
    message = answer_of(open_thread)
    link = redact_url(open_thread, message)
    assert link in console.get(thread_url(open_thread)).content.decode()
    assert link not in reader_console.get(thread_url(open_thread)).content.decode()


def test_the_redact_page_asks_for_confirmation_and_stores_nothing(console, open_thread, answer_of):
    message = answer_of(open_thread)
    with nothing_stored():
        page = console.get(redact_url(open_thread, message))
    html = page.content.decode()
    assert page.status_code == 200 and "hunter2" in html and 'name="reason"' in html and "cannot be undone" in html


def test_confirming_redacts_the_message_as_the_human_with_the_reason(console, open_thread, answer_of):
    message = answer_of(open_thread)
    response = console.post(redact_url(open_thread, message), {"reason": REASON}, follow=True)
    assert reports(response) == [("success", f"Thread {open_thread}: msg_{message} redacted; the thread is "
                                             "answered (proposed)")]
    stored = Message.objects.get(pk=message)
    assert (stored.body, stored.redacted_by) == ("", "human:mia")
    event = StateEvent.objects.filter(thread_id=number(open_thread)).latest("id")
    assert (event.label, event.origin, event.message_id, event.note) == ("redact", "user", message, REASON)
    html = response.content.decode()
    assert "hunter2" not in html and "redacted by human:mia" in html and f"reason: {REASON}" in html


def test_redacting_the_opening_message_shows_the_title_as_redacted(console, open_thread):
    console.post(redact_url(open_thread, thread_of(open_thread).first_message_id), {})
    assert thread_of(open_thread).title == "(redacted)"


def test_a_second_redaction_is_refused_with_invalid_transition(console, open_thread, answer_of):
    message = answer_of(open_thread)
    console.post(redact_url(open_thread, message), {}, follow=True)  # its report read
    with nothing_stored():
        response = console.post(redact_url(open_thread, message), {"reason": "again"}, follow=True)
    [(level, text)] = reports(response)
    assert level == "error" and text.startswith(f"Thread {open_thread}: refused — invalid_transition: ")


def test_a_bad_redact_reason_is_refused_as_over_the_api_and_stores_nothing(console, open_thread, answer_of):
    message = answer_of(open_thread)
    with nothing_stored():
        response = console.post(redact_url(open_thread, message), {"reason": "x" * 501})
    assert response.status_code == 200  # the confirmation page again, with what was typed
    [(level, text)] = reports(response)
    assert level == "error" and "invalid_body" in text and "field=reason" in text


def test_a_message_of_another_thread_is_not_found(console, open_thread, answered_thread, answer_of):
    message = answer_of(answered_thread, "Elsewhere.")
    with nothing_stored():
        assert console.get(redact_url(open_thread, message)).status_code == 404


def test_a_staff_user_without_the_permission_cannot_redact(reader_console, open_thread, answer_of):
    message = answer_of(open_thread)
    with nothing_stored():
        assert reader_console.post(redact_url(open_thread, message), {}).status_code == 403
    assert reader_console.get(redact_url(open_thread, message)).status_code == 403
