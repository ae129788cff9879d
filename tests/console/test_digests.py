"""The moderators' email digests (issue 14): one mail per PARLEY_NOTIFY_MINUTES at most, to each moderator
who opted in, listing the threads that entered the moderation queue since their last one, with links."""
import socket
import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.db import connection, connections
from django.utils import timezone

from console.digests import due_notices, send_digest, send_digests
from console.models import ModeratorNotice
from tests.console.console import number, thread_of

PUBLIC_URL = "https://parley.example.org"


@pytest.fixture(autouse=True)
def public_url(settings):
    settings.PARLEY_PUBLIC_URL = PUBLIC_URL
    settings.PARLEY_NOTIFY_MINUTES = 15


def opt_in(user, email=None):
    user.email = email or f"{user.get_username()}@example.org"
    user.save(update_fields=["email"])
    return ModeratorNotice.objects.create(user=user, opted_in=True)


def run_digests():
    """What `parley_worker` does every minute: the task, run as its worker runs it."""
    return send_digests.call()


def thread_link(ref):
    return f"{PUBLIC_URL}/admin/forum/thread/{number(ref)}/change/"


def test_an_opted_in_moderator_gets_one_mail_listing_the_proposals_with_links(moderator, make_thread):
    opt_in(moderator)
    first = make_thread("proposed_close", "Shall we ship on Friday?")
    second = make_thread("proposed_close", "Shall we drop the old API?")
    make_thread("open", "Nothing to moderate here")

    assert run_digests() == 1
    (digest,) = mail.outbox
    assert digest.to == ["mia@example.org"]
    assert digest.subject == "[Parley] 2 threads entered the moderation queue"
    for ref, title in [(first, "Shall we ship on Friday?"), (second, "Shall we drop the old API?")]:
        assert title in digest.body and thread_link(ref) in digest.body
    assert "Nothing to moderate here" not in digest.body
    assert f"{PUBLIC_URL}/admin/forum/thread/?pending=yes" in digest.body
    html, mimetype = digest.alternatives[0]
    assert mimetype == "text/html"
    assert f'<a href="{thread_link(first)}">' in html


def test_a_moderator_who_did_not_opt_in_gets_no_mail(moderator, make_thread):
    opt_in(moderator)
    ModeratorNotice.objects.filter(user=moderator).update(opted_in=False)
    make_thread("proposed_close")
    assert run_digests() == 0
    assert mail.outbox == []


def test_a_moderator_gets_at_most_one_mail_per_window(moderator, make_thread, time_machine):
    opt_in(moderator)
    start = timezone.now()
    time_machine.move_to(start, tick=False)
    make_thread("proposed_close", "The first proposal")
    assert run_digests() == 1

    time_machine.move_to(start + timedelta(minutes=5), tick=False)
    later = make_thread("proposed_close", "A proposal five minutes later")
    assert run_digests() == 0

    time_machine.move_to(start + timedelta(minutes=15, seconds=1), tick=False)
    assert run_digests() == 1
    assert len(mail.outbox) == 2
    assert "A proposal five minutes later" in mail.outbox[1].body and thread_link(later) in mail.outbox[1].body
    assert "The first proposal" not in mail.outbox[1].body  # told once
    assert mail.outbox[1].subject == "[Parley] 1 thread entered the moderation queue"


def test_nothing_new_in_the_queue_since_the_last_mail_sends_nothing(moderator, make_thread, time_machine):
    opt_in(moderator)
    start = timezone.now()
    time_machine.move_to(start, tick=False)
    make_thread("proposed_close")
    assert run_digests() == 1
    time_machine.move_to(start + timedelta(hours=1), tick=False)
    make_thread("open")
    assert run_digests() == 0
    assert len(mail.outbox) == 1


def test_a_proposal_settled_before_the_digest_is_not_listed(moderator, make_thread):
    opt_in(moderator)
    make_thread("confirmed_close")
    assert run_digests() == 0
    assert mail.outbox == []


def test_a_thread_that_filled_up_is_listed_as_it_entered_the_queue(moderator, make_thread, as_bob, settings):
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "thread_max_messages": 2}
    opt_in(moderator)
    full = make_thread("open", "A thread that fills up")
    assert as_bob.say("note", "the last one", thread=full).status_code == 201
    assert run_digests() == 1
    assert "A thread that fills up" in mail.outbox[0].body and thread_link(full) in mail.outbox[0].body


def test_a_moderator_who_is_no_longer_active_gets_no_digest(moderator, make_thread):
    opt_in(moderator)
    moderator.is_active = False
    moderator.save(update_fields=["is_active"])
    make_thread("proposed_close")
    assert run_digests() == 0


def test_staff_without_the_moderation_permission_get_no_digest(staff_reader, make_thread):
    opt_in(staff_reader)
    make_thread("proposed_close")
    assert run_digests() == 0
    assert mail.outbox == []


def test_a_moderator_without_an_email_address_gets_no_digest(moderator, make_thread):
    opt_in(moderator)
    moderator.email = ""
    moderator.save(update_fields=["email"])
    make_thread("proposed_close")
    assert run_digests() == 0


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_digest_the_mail_server_refused_is_sent_at_the_next_run(moderator, make_thread, settings):
    notice = opt_in(moderator)
    ref = make_thread("proposed_close")
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", closed_port(), 2
    assert run_digests() == 0
    notice.refresh_from_db()
    assert notice.last_sent_at is None

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert run_digests() == 1
    assert thread_link(ref) in mail.outbox[0].body


def test_a_run_reads_a_few_queries_per_moderator(make_moderator, make_thread, django_assert_max_num_queries):
    for name in ["mia", "max", "mo"]:
        opt_in(make_moderator(name))
    make_thread("proposed_close")
    # The due rows; then per moderator their permissions (user and groups), the queue, the claim.
    with django_assert_max_num_queries(1 + 3 * 4):
        assert run_digests() == 3


def test_the_digests_run_every_minute_in_the_worker(moderator):
    assert settings.PARLEY_PERIODIC_TASKS["console.digests.send_digests"] == 60
    assert send_digests.module_path == "console.digests.send_digests"


@pytest.mark.postgres
def test_two_workers_at_once_send_one_digest(transactional_db, moderator, make_thread):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite lets one writer in at a time anyway")
    opt_in(moderator)
    ref = make_thread("proposed_close")
    # Both workers have read the row as due before either claims it.
    readings = [due_notices(timezone.now()) for _ in range(2)]
    barrier, sent = threading.Barrier(2), []

    def worker(notices):
        try:
            barrier.wait()
            sent.extend(send_digest(notice) for notice in notices)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=worker, args=(notices,)) for notices in readings]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(30)
    assert sorted(sent) == [0, 1]
    (digest,) = mail.outbox
    assert thread_link(ref) in digest.body
    assert thread_of(ref).is_pending


def test_a_moderator_opts_in_on_their_own_page(console, moderator):
    page = console.get("/admin/console/moderatornotice/mine/")
    assert page.status_code == 200
    answer = console.post("/admin/console/moderatornotice/mine/", {"opted_in": "on"}, follow=True)
    assert answer.status_code == 200
    assert ModeratorNotice.objects.get(user=moderator).opted_in is True
    console.post("/admin/console/moderatornotice/mine/", {})
    assert ModeratorNotice.objects.get(user=moderator).opted_in is False


def test_staff_who_do_not_moderate_have_no_digest_page_and_store_nothing(reader_console):
    assert reader_console.get("/admin/console/moderatornotice/mine/").status_code == 403
    assert reader_console.post("/admin/console/moderatornotice/mine/", {"opted_in": "on"}).status_code == 403
    assert ModeratorNotice.objects.count() == 0


def test_the_console_header_links_a_moderator_to_their_digests(console, reader_console):
    assert b"/admin/console/moderatornotice/mine/" in console.get("/admin/").content
    assert b"/admin/console/moderatornotice/mine/" not in reader_console.get("/admin/").content
