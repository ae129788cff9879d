"""What the browser tests share: Debian's Chromium driven by Playwright, an agent speaking real HTTP to the
server under test, signing in, and screenshots in artifacts/ for a reviewer. Imported by the browser test
modules only: without Playwright the import skips them."""
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

BROWSER_MARKS = [
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


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a module's tests: a launch costs more than most tests. Each page a test opens with
    `browser.new_page()` has a browser context of its own (cookies, storage), so nothing passes between
    tests. A browser test module holds browser tests only: while this fixture lives, Playwright's sync API
    keeps an event loop in this thread, where `asyncio.run` would refuse to start another."""
    with pytest.MonkeyPatch.context() as patch, sync_api.sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the tests' own ORM reads are still sync
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
