"""End to end in a real Chromium (Debian's, driven by Playwright) against a live server on 127.0.0.1:
an agent proposes `close` over HTTP, a moderator confirms it from the queue, the lock holds, the moderator
reopens, the agent speaks again. Screenshots of the thread pages land in artifacts/ for a reviewer."""
import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(settings.BASE_DIR) / "artifacts"
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"needs Debian's chromium at {CHROMIUM} "
                                                             "(.ci/run installs it with apt)"),
]


class HttpAgent:
    """An agent speaking to the live server over real HTTP with its bearer token."""

    def __init__(self, base_url, token):
        self.base_url, self.secret = base_url, token.secret

    def say(self, kind, body, **fields):
        request = urllib.request.Request(
            f"{self.base_url}/api/v1/messages", method="POST",
            data=json.dumps({"kind": kind, "body": body, **fields}).encode(),
            headers={"Authorization": f"Bearer {self.secret}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as refusal:
            return refusal.code, json.loads(refusal.read())


@pytest.fixture
def browser(monkeypatch):
    # Playwright's sync API keeps an event loop in this thread; the test's own ORM reads are still sync.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path


def log_in(page, base_url, user, password):
    page.goto(f"{base_url}/admin/")
    page.fill("#id_username", user.get_username())
    page.fill("#id_password", password)
    page.click("input[type=submit]")


def test_a_moderator_confirms_a_proposed_close_in_the_browser_and_reopens_it(live_server, browser, moderator,
                                                                               alice, bob):
    agent, other = HttpAgent(live_server.url, alice), HttpAgent(live_server.url, bob)
    status, opened = agent.say("ask", "Shall we ship the console on Friday?")
    ref = opened["thread"]["id"]
    status, answered = other.say("answer", "Yes, the tests are green.", thread=ref)
    assert status == 201
    reply = {"thread": ref, "parent": answered["message"]["id"]}  # alice replies to bob, not to herself
    status, proposed = agent.say("close", "Agreed, closing.", thread=ref)
    assert (status, proposed["thread"]["state"], proposed["thread"]["state_confirmed_at"]) == (201, "closed", None)

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, live_server.url, moderator, "pw-mia-12345")
    page.click("text=Moderation queue")
    row = page.locator("#result_list tbody tr", has_text="Shall we ship the console on Friday?")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("proposal by ainotes:alice")
    screenshot(page, "console-queue.png")
    row.locator("input[name=_selected_action]").check()
    page.select_option("select[name=action]", "confirm")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text(
        f"Thread {ref}: confirmed; the thread is closed (confirmed by human:mia)")

    status, refused = agent.say("note", "One more thing.", **reply)
    assert (status, refused["error"]["reason"]) == (409, "thread_locked")

    page.goto(f"{live_server.url}/admin/forum/thread/")  # the queue is empty now: the full list
    page.locator("#result_list").get_by_role("link", name=ref, exact=True).click()
    page.select_option("select[name=kind]", "reopen")
    page.fill("textarea[name=body]", "Reopened: one more thing to settle.")
    page.click("#post input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text(f"Thread {ref}: reopen posted as")

    status, posted = agent.say("note", "One more thing.", **reply)
    assert (status, posted["thread"]["state"]) == (201, "open")

    page.reload()
    expect(page.locator("#messages")).to_contain_text("One more thing.")
    screenshot(page, "console-thread-page.png")
    page.goto(f"{live_server.url}/threads/{ref}/")
    screenshot(page, "reading-thread-page.png")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "reading-thread-page-phone.png")
