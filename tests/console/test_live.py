"""The live console (issue 14) in a real Chromium against the application as it is served (ASGI, so the
feed's event stream is open to the staff session): the moderation queue, a thread's page and the header's
queue count follow what agents do over REST, within 2 s and without a reload."""
import time

import pytest

from tests.console.chromium import BROWSER_MARKS, HttpAgent, browser, expect, log_in, screenshot  # noqa: F401

pytestmark = BROWSER_MARKS
WITHIN_MS = 2000


@pytest.fixture
def agents(asgi_live_server, alice):
    return (HttpAgent(asgi_live_server, alice),)


@pytest.fixture
def page(browser, asgi_live_server, moderator):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, asgi_live_server, moderator, "pw-mia-12345")
    yield page
    page.close()


def asked(agents, question):
    """A thread alice opened: not in the moderation queue (`open` is confirmed at creation, §8)."""
    status, opened = agents[0].say("ask", question)
    assert status == 201
    return opened["thread"]["id"]


def propose(agents, ref, body="Deferring this until the release."):
    """Alice, without `lock`, defers her thread: a proposal, which enters the moderation queue (§8)."""
    status, proposed = agents[0].say("defer", body, thread=ref)
    assert (status, proposed["thread"]["state_confirmed_at"]) == (201, None), proposed
    return time.monotonic()


def goes_live(page):
    expect(page.locator("#parley-live")).to_have_attribute("data-state", "live", timeout=5000)


def header_count(page):
    return page.locator("[data-parley-live=queue-count]")


def test_a_proposal_posted_over_rest_appears_on_an_open_queue_page_within_two_seconds(
        page, asgi_live_server, agents):
    ref = asked(agents, "Shall we ship the console on Friday?")
    page.goto(f"{asgi_live_server}/admin/forum/thread/?pending=yes")
    goes_live(page)
    expect(header_count(page)).to_have_text("Queue: 0")
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))

    posted = propose(agents, ref)
    row = page.locator("#result_list tbody tr", has_text="Shall we ship the console on Friday?")
    expect(row).to_contain_text("proposal by ainotes:alice", timeout=WITHIN_MS)
    assert time.monotonic() - posted < WITHIN_MS / 1000
    expect(header_count(page)).to_have_text("Queue: 1")
    assert navigations == []  # no reload
    screenshot(page, "console-live-queue.png")


def test_the_queue_keeps_a_moderators_selection_until_it_is_cleared(page, asgi_live_server, agents):
    first = asked(agents, "Which port for staging?")
    propose(agents, first)
    second = asked(agents, "Which cache for staging?")
    page.goto(f"{asgi_live_server}/admin/forum/thread/?pending=yes")
    goes_live(page)
    row = page.locator("#result_list tbody tr", has_text="Which port for staging?")
    row.locator("input[name=_selected_action]").check()

    propose(agents, second)
    expect(header_count(page)).to_have_text("Queue: 2", timeout=WITHIN_MS)
    expect(page.locator("#result_list tbody tr")).to_have_count(1)  # the list waits while one is ticked
    row.locator("input[name=_selected_action]").uncheck()
    expect(page.locator("#result_list tbody tr")).to_have_count(2, timeout=WITHIN_MS)
    page.locator("#result_list tbody tr", has_text="Which cache for staging?").locator(
        "input[name=_selected_action]").check()
    expect(page.locator(".action-counter")).to_contain_text("1 of 2 selected")  # Django's actions still bound


def test_a_thread_page_shows_a_new_proposal_and_its_message_without_a_reload(page, asgi_live_server, agents):
    ref = asked(agents, "Shall we drop the old API?")
    number = ref.removeprefix("th_")
    page.goto(f"{asgi_live_server}/admin/forum/thread/{number}/change/")
    goes_live(page)
    expect(page.locator("#pending")).to_have_count(0)
    page.fill("textarea[name=body]", "A reply I am still typing")

    propose(agents, ref, "Deferred: nobody calls it any more.")
    expect(page.locator("#messages")).to_contain_text("Deferred: nobody calls it any more.", timeout=WITHIN_MS)
    expect(page.locator("#pending")).to_contain_text("Pending proposal: deferred by ainotes:alice")
    expect(page.locator("#history")).to_contain_text("unconfirmed")
    expect(page.locator("textarea[name=body]")).to_have_value("A reply I am still typing")
    expect(header_count(page)).to_have_text("Queue: 1")
    screenshot(page, "console-live-thread-page.png")


def test_the_header_count_follows_the_queue_on_any_console_page(page, asgi_live_server, agents):
    ref = asked(agents, "Shall we rename the realm?")
    page.goto(f"{asgi_live_server}/admin/console/moderatornotice/mine/")
    goes_live(page)
    expect(header_count(page)).to_have_text("Queue: 0")
    propose(agents, ref)
    expect(header_count(page)).to_have_text("Queue: 1", timeout=WITHIN_MS)


def test_the_reading_page_of_a_thread_follows_it_too(page, asgi_live_server, agents):
    ref = asked(agents, "Shall we move the docs?")
    page.goto(f"{asgi_live_server}/threads/{ref}/")
    goes_live(page)
    propose(agents, ref, "Deferred until the docs sprint.")
    expect(page.locator("[data-parley-live=messages]")).to_contain_text("Deferred until the docs sprint.",
                                                                       timeout=WITHIN_MS)
    expect(page.locator("[data-parley-live=facts]")).to_contain_text("awaiting a moderator")


def test_where_the_stream_cannot_be_had_the_page_says_so_and_still_works(browser, live_server, moderator, alice):
    """Django's own live server speaks WSGI, which refuses the stream (§16): the page is the page, and a
    reload shows what is new."""
    page = browser.new_page()
    log_in(page, live_server.url, moderator, "pw-mia-12345")
    page.goto(f"{live_server.url}/admin/forum/thread/?pending=yes")
    expect(page.locator("#parley-live")).to_have_attribute("data-state", "offline")
    expect(page.locator("#parley-live")).to_have_text("not live")
    ref = asked((HttpAgent(live_server.url, alice),), "Is anyone there?")
    propose((HttpAgent(live_server.url, alice),), ref)
    page.reload()
    expect(page.locator("#result_list tbody tr", has_text="Is anyone there?")).to_have_count(1)
