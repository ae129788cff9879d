"""Staff read the console; only holders of forum.moderate_thread act; history is never edited."""
import pytest

from forum.models import Message, StateEvent
from tests.console.console import CHANGELIST, run_action, thread_of, thread_url


def test_a_staff_user_without_the_permission_reads_the_list_and_the_thread_page(reader_console, proposed_close):
    assert reader_console.get(CHANGELIST).status_code == 200
    page = reader_console.get(thread_url(proposed_close))

    assert page.status_code == 200
    assert "Which queue should we use?" in page.content.decode()


def test_a_staff_user_without_the_permission_is_offered_no_action_and_no_post_form(reader_console, proposed_close):
    assert reader_console.get(CHANGELIST).context["action_form"] is None
    html = reader_console.get(thread_url(proposed_close)).content.decode()

    assert 'value="confirm"' not in html
    assert "Post as human:" not in html


def test_a_staff_user_without_the_permission_cannot_run_an_action(reader_console, proposed_close):
    run_action(reader_console, "confirm", [proposed_close])

    assert thread_of(proposed_close).is_pending


@pytest.mark.parametrize("view, form", [
    ("post", {"kind": "note", "body": "Sneaky."}),
    ("settle", {"operation": "confirm"}),
])
def test_a_staff_user_without_the_permission_cannot_post_or_settle(reader_console, proposed_close, view, form):
    messages, events = Message.objects.count(), StateEvent.objects.count()

    response = reader_console.post(thread_url(proposed_close, view), form)

    assert response.status_code == 403
    assert (Message.objects.count(), StateEvent.objects.count()) == (messages, events)
    assert thread_of(proposed_close).is_pending


def test_the_post_and_settle_doors_take_only_post(console, proposed_close):
    assert console.get(thread_url(proposed_close, "settle")).status_code == 405


@pytest.mark.parametrize("path", [
    "/admin/forum/thread/add/",
    "/admin/forum/thread/{thread}/delete/",
    "/admin/forum/stateevent/add/",
    "/admin/forum/stateevent/{event}/change/",
    "/admin/forum/stateevent/{event}/delete/",
])
def test_nobody_adds_changes_or_deletes_threads_or_history_through_forms(admin_client, proposed_close, path):
    thread = thread_of(proposed_close)
    event = StateEvent.objects.filter(thread=thread).first()
    url = path.format(thread=thread.pk, event=event.pk)

    response = admin_client.post(url, {"post": "yes", "title": "Changed"})

    assert response.status_code == 403
    assert thread_of(proposed_close).title == thread.title
    assert StateEvent.objects.filter(pk=event.pk).exists()


def test_a_non_staff_user_cannot_enter_the_console(client, django_user_model, proposed_close):
    client.force_login(django_user_model.objects.create_user("nina", password="pw-nina-12345"))

    response = client.get(CHANGELIST)

    assert response.status_code == 302 and response.url.startswith("/admin/login/")
