"""A host that only signs in with OAuth (issue: hosted connectors), end to end: the official MCP Python SDK's
OAuth client against the production command on loopback, identified by a client ID metadata document it
serves over https, the consent given by a moderator in Debian's Chromium. The SDK meets the 401 of
/mcp/oauth, discovers the resource and the authorization server, sends the browser to the consent page,
exchanges the code with its PKCE verifier, and then acts as the line the human chose; refreshed, revoked."""
import asyncio
import json
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from oauth2_provider.models import Application

from bench.server import free_port
from oauth.models import LineGrant
from oauth.services import grant_revoke
from tests.console.chromium import ARTIFACTS, BROWSER_MARKS, CHROMIUM, CHROMIUM_ARGS
from tests.console.console import grant
from tests.oauth.tls import HttpsServer, temporary_authority

pytestmark = BROWSER_MARKS
async_api = pytest.importorskip("playwright.async_api")
DOCUMENT = "/oauth/parley-test-host.json"


class Memory:
    """The SDK's TokenStorage, kept in memory: what a host would keep on disk."""

    def __init__(self):
        self.tokens = self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Consent:
    """The human's side: Chromium, sent by the SDK to the consent page, logs in and allows; the redirect back to
    the host is caught in the browser (nothing listens on the callback port)."""

    def __init__(self, page, callback, user, password):
        self.page, self.callback, self.user, self.password = page, callback, user, password
        self.answered = asyncio.Event()
        self.query = {}

    async def start(self):
        await self.page.route(f"{self.callback}**", self.caught)

    async def caught(self, route):
        self.query = {name: values[0] for name, values in parse_qs(urlsplit(route.request.url).query).items()}
        self.answered.set()
        await route.fulfill(status=200, content_type="text/html", body="Connected: you may close this window.")

    async def redirect_handler(self, url):
        page = self.page
        await page.goto(url)
        await page.fill("#id_username", self.user)
        await page.fill("#id_password", self.password)
        await page.click("input[type=submit]")
        await page.wait_for_selector("#consent-form")
        assert await page.text_content("#client-name") == "Parley test host"
        await page.fill("#id_handle", "hosted-connector")
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "oauth-consent.png"), full_page=True)
        await page.click("#allow")
        await asyncio.wait_for(self.answered.wait(), 30)

    async def callback_handler(self):
        return AuthorizationCodeResult(code=self.query["code"], state=self.query.get("state"),
                                       iss=self.query.get("iss"))


def rest_whoami(base, access_token):
    request = urllib.request.Request(f"{base}/api/v1/whoami", headers={"Authorization": f"Bearer {access_token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refusal:
        return refusal.code, json.loads(refusal.read())


def test_a_host_that_only_signs_in_gets_a_line_through_a_humans_consent(gunicorn, moderator, monkeypatch):
    grant(moderator, "view_token", "add_token", "change_token")
    authority = temporary_authority()
    callback = f"http://127.0.0.1:{free_port()}/callback"
    server = gunicorn(workers=1, PARLEY_OAUTH_ALLOW_PRIVATE=1, PARLEY_WEBHOOKS_ALLOW_PORTS="any",
                      SSL_CERT_FILE=authority["ca"])
    base = f"http://127.0.0.1:{server.port}"
    server.env["PARLEY_PUBLIC_URL"] = base
    monkeypatch.setenv("SSL_CERT_FILE", str(authority["ca"]))  # the SDK's httpx2 trusts the document's server too
    with server, HttpsServer(authority) as documents:
        client_id = documents.url(DOCUMENT)
        documents.answer(DOCUMENT, {"client_id": client_id, "client_name": "Parley test host",
                                    "redirect_uris": [callback], "grant_types": ["authorization_code", "refresh_token"],
                                    "response_types": ["code"], "token_endpoint_auth_method": "none"})
        storage = Memory()

        async def main():
            async with async_api.async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                consent = Consent(await browser.new_page(), callback, "mia", "pw-mia-12345")
                await consent.start()
                provider = OAuthClientProvider(
                    f"{base}/mcp/oauth", OAuthClientMetadata(redirect_uris=[callback], client_name="Parley test host",
                                                             token_endpoint_auth_method="none"),
                    storage, consent.redirect_handler, consent.callback_handler, client_metadata_url=client_id)
                async with httpx2.AsyncClient(auth=provider, timeout=30) as http, \
                        Client(streamable_http_client(f"{base}/mcp/oauth", http_client=http)) as host:
                    me = (await host.call_tool("whoami", {})).structured_content
                    assert (me["identity"], me["rights"]) == ("ainotes:hosted-connector", ["read", "write"])
                    posted = await host.call_tool("post", {"kind": "ask", "body": "Asked through a connector"})
                    assert posted.is_error is False, posted.content
                    assert consent.query["iss"] == base

                    first = storage.tokens.access_token
                    provider.context.token_expiry_time = 1  # long past, as if an hour had gone by: the SDK refreshes
                    assert (await host.call_tool("whoami", {})).is_error is False
                    assert storage.tokens.access_token != first
                await browser.close()

        anyio.run(main)
        application = Application.objects.get(client_id=client_id)
        assert (application.registration_source, application.name) == ("cimd", "Parley test host")
        assert rest_whoami(base, storage.tokens.access_token)[1]["identity"] == "ainotes:hosted-connector"
        grant_revoke(moderator, LineGrant.objects.get(application=application).pk)
        status, body = rest_whoami(base, storage.tokens.access_token)
        assert (status, body["error"]["reason"]) == (401, "token_invalid")
