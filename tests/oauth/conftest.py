"""The OAuth tests' host: a client registered by dynamic registration (RFC 7591) that runs the authorization
code flow with PKCE over Django's test client, the consent given by a human logged in to the console.

Personas beside tests/conftest.py's: `keeper` is mia, who moderates, also keeping the tokens (she may grant
every right); tess (`token_keeper`) keeps the tokens without moderating (she may grant `read`)."""
import base64
import hashlib
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client

from tests.console.console import grant, logged_in

REDIRECT_URI = "http://127.0.0.1:33418/callback"
ISSUER = "http://127.0.0.1:8000"  # PARLEY_PUBLIC_URL of the test settings


def pkce_pair():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


@dataclass
class Authorization:
    """One run of the flow: what the host sent, and what came back to its redirect URI."""
    state: str
    verifier: str
    answer: dict  # the redirect's query: code, state, iss (or error)


class Host:
    """An MCP host speaking to the authorization server: registers itself, sends the human's browser (a
    logged-in console session) to the consent page, and exchanges what comes back."""

    def __init__(self, client_id, redirect_uri=REDIRECT_URI):
        self.client_id, self.redirect_uri, self.client = client_id, redirect_uri, Client()

    def authorization_query(self, challenge, state, **extra):
        return {"response_type": "code", "client_id": self.client_id, "redirect_uri": self.redirect_uri,
                "code_challenge": challenge, "code_challenge_method": "S256", "state": state,
                "scope": "read write", "resource": f"{ISSUER}/mcp/oauth", **extra}

    def consent_page(self, browser, **extra):
        verifier, challenge = pkce_pair()
        state = secrets.token_urlsafe(8)
        query = self.authorization_query(challenge, state, **extra)
        return browser.get(f"/oauth/authorize?{urlencode(query)}"), Authorization(state, verifier, {})

    def authorize(self, browser, line="new", handle="claude-host", rights=("read", "write"), allow=True,
                  **extra):
        """The consent page, answered; the redirect's query lands in the Authorization."""
        page, authorization = self.consent_page(browser, **extra)
        assert page.status_code == 200, page.content
        form = page.context["form"]
        data = {name: form[name].value() or "" for name in form.fields if form.fields[name].widget.is_hidden}
        data.update(line=line, handle=handle, label="", rights=list(rights))
        if allow:
            data["allow"] = "Allow"
        response = browser.post("/oauth/authorize", data)
        authorization.answer = redirect_query(response) if response.status_code == 302 else {"page": response}
        return authorization

    def exchange(self, authorization, verifier=None, redirect_uri=None):
        return self.token_request(grant_type="authorization_code", code=authorization.answer["code"],
                                  code_verifier=authorization.verifier if verifier is None else verifier,
                                  redirect_uri=redirect_uri or self.redirect_uri)

    def refresh(self, refresh_token):
        return self.token_request(grant_type="refresh_token", refresh_token=refresh_token)

    def token_request(self, **form):
        return self.client.post("/oauth/token", urlencode({"client_id": self.client_id, **form}),
                                content_type="application/x-www-form-urlencoded")

    def tokens(self, browser, **consent):
        """A completed flow: the token answer (access_token, refresh_token, ...)."""
        response = self.exchange(self.authorize(browser, **consent))
        assert response.status_code == 200, response.content
        return response.json()


def redirect_query(response):
    location = response["Location"]
    assert location.startswith(REDIRECT_URI.split("?")[0]) or "error" in location, location
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def register(client=None, redirect_uris=(REDIRECT_URI,), name="Claude-like host"):
    return (client or Client()).post("/oauth/register", {
        "client_name": name, "redirect_uris": list(redirect_uris), "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]},
        content_type="application/json")


@pytest.fixture
def host(db):
    """A host registered by dynamic registration, as a public client (no secret)."""
    response = register()
    assert response.status_code == 201, response.content
    return Host(response.json()["client_id"])


@pytest.fixture
def keeper(moderator):
    """mia, who moderates, also keeping the tokens: she may grant every right, to a new line or an existing one."""
    return grant(moderator, "view_token", "add_token", "change_token")


@pytest.fixture
def keeper_browser(keeper):
    return logged_in(keeper)


@pytest.fixture
def tokens_of(host, keeper_browser):
    """tokens_of(**consent): a completed flow of `host`, consented to by mia."""
    return lambda **consent: host.tokens(keeper_browser, **consent)


def bearer(access_token):
    return {"HTTP_AUTHORIZATION": f"Bearer {access_token}"}
