"""Client ID Metadata Documents (MCP authorization, Client Registration): a client_id that is an https URL
names the document describing the client, fetched when the client is first met, through the webhooks' guard
against server-side request forgery, within a deadline and a size cap."""
import time

import pytest
from oauth2_provider.cimd import CIMDError
from oauth2_provider.models import Application

from oauth.client_documents import GuardedFetcher
from tests.oauth.conftest import REDIRECT_URI, Host
from tests.oauth.tls import HttpsServer, temporary_authority

PATH = "/oauth/client.json"


@pytest.fixture(scope="module")
def authority():
    return temporary_authority()


@pytest.fixture
def document_server(authority, monkeypatch, settings):
    """An https server on loopback that this server trusts and, for these tests, may fetch from."""
    monkeypatch.setenv("SSL_CERT_FILE", str(authority["ca"]))
    settings.PARLEY_OAUTH_ALLOW_PRIVATE = True
    settings.PARLEY_WEBHOOKS_ALLOW_PORTS = range(1, 65536)  # the guard's port rule: the server's is a free one
    with HttpsServer(authority) as server:
        yield server


def client_document(server, **fields):
    return {"client_id": server.url(PATH), "client_name": "Hosted connector", "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none", **fields}


def test_a_client_document_is_fetched_and_named_on_the_consent_page(document_server, keeper_browser):
    document_server.answer(PATH, client_document(document_server))
    page, _ = Host(document_server.url(PATH)).consent_page(keeper_browser)
    assert page.status_code == 200, page.content
    client = page.context["client"]
    assert (client.name, client.client_id) == ("Hosted connector", document_server.url(PATH))
    assert "document at 127.0.0.1" in client.origin
    assert Application.objects.get().registration_source == "cimd"


def test_a_client_with_a_document_completes_the_flow(document_server, keeper_browser):
    document_server.answer(PATH, client_document(document_server))
    answer = Host(document_server.url(PATH)).tokens(keeper_browser)
    assert answer["scope"] == "read write"


def test_a_client_document_at_a_private_address_is_never_fetched(document_server, keeper_browser, settings):
    settings.PARLEY_OAUTH_ALLOW_PRIVATE = False
    document_server.answer(PATH, client_document(document_server, client_id=document_server.url(PATH, "localhost")))
    for host in ("127.0.0.1", "localhost"):
        page, _ = Host(document_server.url(PATH, host)).consent_page(keeper_browser)
        assert page.status_code == 400 and "Location" not in page
    assert (document_server.requests, Application.objects.count()) == ([], 0)


def test_the_fetch_refuses_a_private_address_with_the_reason(document_server, settings):
    settings.PARLEY_OAUTH_ALLOW_PRIVATE = False
    with pytest.raises(CIMDError, match="public"):
        GuardedFetcher().fetch(document_server.url(PATH))
    assert document_server.requests == []


@pytest.mark.parametrize("url", ["http://127.0.0.1/client.json", "https://127.0.0.1/", "https://127.0.0.1/a#b",
                                 "https://127.0.0.1/x/../client.json", "https://user:pw@127.0.0.1/client.json"])
def test_the_fetch_refuses_a_url_that_is_no_client_id(url, settings):
    settings.PARLEY_OAUTH_ALLOW_PRIVATE = True
    with pytest.raises(CIMDError):
        GuardedFetcher().fetch(url)


def test_the_fetch_refuses_a_document_larger_than_the_cap(document_server, settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_MAX_DOCUMENT_SIZE": 1000}
    document_server.answer(PATH, chunks=[b"{" + b" " * 600] * 4)
    with pytest.raises(CIMDError, match="larger than 1000 bytes"):
        GuardedFetcher().fetch(document_server.url(PATH))


def test_the_fetch_ends_at_its_deadline_however_slowly_the_body_drips(document_server, settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_FETCH_TIMEOUT_SECONDS": 1}
    document_server.answer(PATH, chunks=[b" "] * 40, pause=0.1)
    started = time.monotonic()
    with pytest.raises(CIMDError, match="in time|fetch"):
        GuardedFetcher().fetch(document_server.url(PATH))
    assert time.monotonic() - started < 2


def test_the_fetch_follows_no_redirect(document_server):
    document_server.answer(PATH, status=302, headers={"Location": "https://127.0.0.1:9/elsewhere.json"})
    with pytest.raises(CIMDError, match="HTTP 302"):
        GuardedFetcher().fetch(document_server.url(PATH))


def test_a_document_naming_another_client_id_is_refused(document_server, keeper_browser):
    document_server.answer(PATH, client_document(document_server, client_id="https://claude.ai/oauth/client.json"))
    page, _ = Host(document_server.url(PATH)).consent_page(keeper_browser)
    assert page.status_code == 400 and Application.objects.count() == 0


def test_client_documents_can_be_limited_to_some_hosts(document_server, keeper_browser, settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_ALLOWED_HOSTS": ["claude.ai"]}
    document_server.answer(PATH, client_document(document_server))
    page, _ = Host(document_server.url(PATH)).consent_page(keeper_browser)
    assert page.status_code == 400 and document_server.requests == []
