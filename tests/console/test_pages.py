"""The staff reading pages outside the admin: the same tree with state badges, read-only."""
import pytest

from tests.console.console import number


def page(ref):
    return f"/threads/{ref}/"


def test_the_reading_page_shows_the_tree_with_a_proposed_badge(reader_console, proposed_close):
    response = reader_console.get(page(proposed_close))

    html = response.content.decode()
    assert response.status_code == 200
    assert '<span class="parley-badge parley-closed parley-proposed">closed</span>' in html
    assert "proposed · unconfirmed" in html
    assert [message.kind for message in response.context["outline"]] == ["ask", "answer", "close"]
    assert 'name="viewport"' in html  # readable on a phone


def test_the_reading_page_shows_a_confirmed_badge_once_confirmed(reader_console, confirmed_close):
    html = reader_console.get(page(number(confirmed_close))).content.decode()

    assert '<span class="parley-badge parley-closed">closed</span>' in html
    assert '<span class="parley-status confirmed">confirmed</span>' in html
    assert "confirmed by ainotes:mod" in html


def test_the_reading_page_offers_no_form(reader_console, proposed_close):
    assert "<form" not in reader_console.get(page(proposed_close)).content.decode()


def test_the_reading_page_links_moderators_to_the_console(console, proposed_close):
    html = console.get(page(proposed_close)).content.decode()

    assert f'href="/admin/forum/thread/{number(proposed_close)}/change/"' in html


@pytest.mark.parametrize("ref", ["th_999999", "th_x", "0"])
def test_an_unknown_or_malformed_thread_is_not_found(reader_console, db, ref):
    assert reader_console.get(page(ref)).status_code == 404


def test_the_thread_list_page_lists_threads_with_badges(reader_console, make_thread):
    refs = [make_thread("open", "First question?"), make_thread("proposed_close", "Second question?")]

    response = reader_console.get("/threads/")

    html = response.content.decode()
    assert [thread.pk for thread in response.context["page"]] == [number(ref) for ref in reversed(refs)]
    assert "First question?" in html and "Second question?" in html
    assert "proposed · unconfirmed" in html


@pytest.mark.parametrize("path", ["/threads/", "/threads/th_1/"])
def test_the_reading_pages_send_non_staff_to_the_login(client, django_user_model, path):
    client.force_login(django_user_model.objects.create_user("nina", password="pw-nina-12345"))

    response = client.get(path)

    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def test_the_reading_page_reads_in_a_bounded_countof_queries(reader_console, make_thread, as_bob,
                                                               django_assert_max_num_queries):
    ref = make_thread("answered")
    for count in range(5):
        as_bob.say("note", f"Note {count}", thread=ref)

    with django_assert_max_num_queries(8):
        assert reader_console.get(page(ref)).status_code == 200
