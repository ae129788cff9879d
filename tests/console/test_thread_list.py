"""The thread list: what needs a moderator at a glance, its filters and search, the queue on the index."""
import pytest

from tests.console.console import CHANGELIST, apply_mark, number, reports, thread_of


def rows(response):
    return [thread.pk for thread in response.context["cl"].result_list]


def test_the_list_shows_state_proposal_by_whom_awaiting_creator_and_count(console, proposed_close):
    html = console.get(CHANGELIST).content.decode()

    assert "proposed · unconfirmed" in html
    assert "proposal by <strong>ainotes:alice</strong> (llm)" in html
    assert "confirmation from moderator" in html
    assert "ainotes:alice" in html
    assert '<td class="field-message_count">3</td>' in html


def test_a_confirmed_state_shows_who_confirmed_it(console, confirmed_close):
    html = console.get(CHANGELIST).content.decode()

    assert "confirmed by ainotes:mod (llm)" in html
    assert '<span class="parley-status confirmed">confirmed</span>' in html


@pytest.mark.parametrize("query, expected", [
    ({"pending": "yes"}, ["proposed"]),
    ({"pending": "no"}, ["confirmed", "open", "bob's"]),
    ({"state": "closed"}, ["proposed", "confirmed"]),
    ({"awaiting": "confirmation"}, ["proposed"]),
    ({"awaiting": "nothing"}, ["confirmed"]),
    ({"awaiting": "answer"}, ["open", "bob's"]),
    ({"creator_identity": "ainotes:bob"}, ["bob's"]),
])
def test_the_list_filters_by_pending_state_awaiting_and_creator(console, make_thread, as_bob, query, expected):
    made = {"open": make_thread("open"), "proposed": make_thread("proposed_close"),
            "confirmed": make_thread("confirmed_close"), "bob's": as_bob.ask("Bob asks.")}

    response = console.get(CHANGELIST, query)

    assert sorted(rows(response)) == sorted(number(made[name]) for name in expected)


def test_search_finds_threads_by_title_and_by_message_body(console, as_alice, as_bob):
    by_title = as_alice.ask("Kafka or Pulsar?")
    by_body = as_alice.ask("Which broker?")
    as_bob.say("answer", "Kafka, for its tooling.", thread=by_body)
    as_alice.ask("Unrelated question")

    response = console.get(CHANGELIST, {"q": "kafka"})

    assert sorted(rows(response)) == sorted([number(by_title), number(by_body)])


def test_the_admin_index_links_the_moderation_queue_with_its_count(console, make_thread):
    make_thread("proposed_close")
    make_thread("proposed_close")
    make_thread("confirmed_close")

    html = console.get("/admin/").content.decode()

    assert f'href="{CHANGELIST}?pending=yes"' in html
    assert "Moderation queue: <strong>2</strong>" in html


def test_the_queue_link_lists_exactly_the_pending_proposals(console, make_thread):
    pending = make_thread("proposed_close")
    make_thread("open")

    response = console.get(CHANGELIST, {"pending": "yes"})

    assert rows(response) == [number(pending)]


def test_the_list_reads_in_a_bounded_number_of_queries(console, make_thread, django_assert_max_num_queries):
    for stage in ["open", "answered", "proposed_close", "confirmed_close"] * 3:
        make_thread(stage)

    # 9 for the list, and 2 for the header of every console page: the queue count, the live stream's start.
    with django_assert_max_num_queries(11):
        assert console.get(CHANGELIST).status_code == 200


def test_the_queue_lists_a_full_thread_until_a_confirmed_mark_settles_it(console, make_thread, as_bob, settings):
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "thread_max_messages": 2}
    full = make_thread("open")
    make_thread("open")
    assert as_bob.say("note", "the last one", thread=full).status_code == 201  # open, confirmed, and full
    assert rows(console.get(CHANGELIST, {"pending": "yes"})) == [number(full)]
    assert "Moderation queue: <strong>1</strong>" in console.get("/admin/").content.decode()

    [(level, _)] = reports(apply_mark(console, "obsolete", [full], "Marked obsolete by the moderator."))

    assert level == "success" and thread_of(full).is_locked
    assert rows(console.get(CHANGELIST, {"pending": "yes"})) == []
