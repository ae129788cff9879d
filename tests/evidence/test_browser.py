"""In a real Chromium (Debian's, driven by Playwright) against a live server: an agent uploads HTML whose
script would announce itself (a request to a receiver on loopback, and the page's title); a moderator,
logged in to the console, opens the artifact's URL and the page of a claim that cites it. The script never
runs: the bytes come as a sandboxed attachment, never sniffed, and the console shows them as escaped text."""
import http.server
import json
import threading
import urllib.request

import pytest

from tests.console.console import grant
from tests.console.chromium import BROWSER_MARKS, HttpAgent, browser, expect, log_in, sync_api  # noqa: F401

pytestmark = BROWSER_MARKS


@pytest.fixture
def receiver():
    """A loopback HTTP server that records every request: the script's way to say it ran."""
    hits = []

    class Record(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Record)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()


def upload(base_url, token, data, content_type):
    request = urllib.request.Request(f"{base_url}/api/v1/artifacts", method="POST", data=data, headers={
        "Authorization": f"Bearer {token.secret}", "Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["artifact"]["id"]


def test_an_uploaded_script_never_runs_on_the_consoles_origin(live_server, browser, receiver, alice,
                                                               django_user_model):
    moderator = grant(django_user_model.objects.create_user("mia", password="pw-mia-12345", is_staff=True),
                      "moderate_thread")
    address, hits = receiver
    script = (f"<html><head><title>quiet</title></head><body><script>document.title = 'ran';"
              f"fetch('{address}/fetch'); new Image().src = '{address}/image';</script>"
              f"<img src='{address}/markup'></body></html>").encode()
    artifact = upload(live_server.url, alice, script, "text/html")
    agent = HttpAgent(live_server.url, alice)
    _, opened = agent.say("ask", "What does the page do?")
    status, asserted = agent.say("assert", "It does nothing.", thread=opened["thread"]["id"],
                                 proof=[{"kind": "artifact", "ref": artifact}])
    assert status == 201, asserted

    page = browser.new_page()
    log_in(page, live_server.url, moderator, "pw-mia-12345")
    with page.expect_download() as download:
        try:  # an attachment is a download, never a page: the navigation itself is aborted
            page.goto(f"{live_server.url}/api/v1/artifacts/{artifact}")
        except sync_api.Error as aborted:
            assert "Download is starting" in str(aborted)
    assert download.value.suggested_filename.endswith(".bin")

    claim = asserted["claim"]["id"].removeprefix("cl_")
    page.goto(f"{live_server.url}/admin/dialectic/claim/{claim}/change/")
    shown = page.locator("pre.artifact-text")
    expect(shown).to_contain_text("<script>document.title = 'ran';")  # the text itself, escaped
    page.wait_for_timeout(500)
    assert page.title() != "ran"
    assert hits == []
