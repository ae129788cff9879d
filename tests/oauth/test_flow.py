"""The authorization code flow (MCP authorization, OAuth 2.1): PKCE with S256 only, exact redirect URIs,
codes used once and briefly, `iss` in the answer, refresh tokens rotated, revocation (RFC 7009); each
refusal stores nothing a client could use."""
from datetime import timedelta

import time_machine
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import AccessToken, Grant, RefreshToken
from oauth2_provider.settings import oauth2_settings

from forum.models import Token
from oauth.models import LineGrant
from tests.forum.expect import refused
from tests.oauth.conftest import ISSUER, REDIRECT_URI, bearer, pkce_pair, redirect_query, register


def whoami(access_token):
    return Client().get("/api/v1/whoami", **bearer(access_token))


def test_a_code_exchanged_with_its_verifier_gives_tokens_that_act_as_the_granted_line(host, keeper_browser):
    answer = host.tokens(keeper_browser, handle="claude-web", rights=("read", "write"))
    assert (answer["token_type"], answer["scope"], answer["expires_in"]) == ("Bearer", "read write", 3600)
    assert answer["access_token"].startswith("pa_") and answer["refresh_token"].startswith("pr_")
    assert whoami(answer["access_token"]).json() == {
        "identity": "ainotes:claude-web", "label": "claude-web", "rights": ["read", "write"], "realm": "ainotes",
        "moderates": [], "verifies": []}


def test_the_authorization_answer_names_the_issuer(host, keeper_browser):
    authorization = host.authorize(keeper_browser)
    assert authorization.answer["iss"] == ISSUER
    assert authorization.answer["state"] == authorization.state


def test_a_login_is_asked_before_the_consent_page(host):
    page, _ = host.consent_page(Client())
    assert page.status_code == 302 and page["Location"].startswith("/admin/login/?next=/oauth/authorize")


def test_an_authorization_request_without_a_code_challenge_is_refused(host, keeper_browser):
    page, _ = host.consent_page(keeper_browser, code_challenge="", code_challenge_method="")
    answer = redirected_error(page)
    assert (answer["error"], answer["iss"]) == ("invalid_request", ISSUER)


def test_a_plain_code_challenge_is_refused(host, keeper_browser):
    verifier, _ = pkce_pair()
    page, _ = host.consent_page(keeper_browser, code_challenge=verifier, code_challenge_method="plain")
    assert redirected_error(page)["error"] == "invalid_request"


def test_a_code_exchanged_without_its_verifier_is_refused(host, keeper_browser):
    authorization = host.authorize(keeper_browser)
    assert_no_tokens(host.token_request(grant_type="authorization_code", code=authorization.answer["code"],
                                        redirect_uri=host.redirect_uri), "invalid_request")


def test_a_code_exchanged_with_a_wrong_verifier_is_refused(host, keeper_browser):
    authorization = host.authorize(keeper_browser)
    assert_no_tokens(host.exchange(authorization, verifier=pkce_pair()[0]))


def test_a_code_exchanged_for_another_redirect_uri_is_refused(host, keeper_browser):
    authorization = host.authorize(keeper_browser)
    assert_no_tokens(host.exchange(authorization, redirect_uri="http://127.0.0.1:33418/elsewhere"), "invalid_request")


def test_an_unregistered_redirect_uri_is_refused_without_sending_the_browser_there(host, keeper_browser):
    page, _ = host.consent_page(keeper_browser, redirect_uri="http://127.0.0.1:9/stolen")
    assert page.status_code == 400 and "Location" not in page
    assert page.context["error"].error == "invalid_request"


def test_an_http_redirect_uri_off_the_users_machine_is_refused(keeper_browser):
    client_id = register(redirect_uris=["http://attacker.example/callback"]).json()["client_id"]
    page = keeper_browser.get("/oauth/authorize", {
        "response_type": "code", "client_id": client_id, "redirect_uri": "http://attacker.example/callback",
        "code_challenge": pkce_pair()[1], "code_challenge_method": "S256", "state": "s"})
    assert page.status_code == 400 and "Location" not in page


def test_a_token_for_another_server_is_refused_before_the_human_is_asked(host, keeper_browser):
    page, _ = host.consent_page(keeper_browser, resource="https://other.example/mcp")
    assert redirected_error(page)["error"] == "invalid_target"


def test_a_code_is_used_once(host, keeper_browser):
    authorization = host.authorize(keeper_browser)
    assert host.exchange(authorization).status_code == 200
    assert_no_tokens(host.exchange(authorization), already=1)


def test_a_code_expires_after_a_minute(host, keeper_browser):
    authorization = host.authorize(keeper_browser)
    with time_machine.travel(timezone.now() + timedelta(seconds=61)):
        assert_no_tokens(host.exchange(authorization))


def test_an_expired_access_token_is_token_invalid(tokens_of):
    answer = tokens_of()
    with time_machine.travel(timezone.now() + timedelta(seconds=3601)):
        error = refused(whoami(answer["access_token"]), 401, "token_invalid")
    assert error["message"] == "a valid bearer token is required"


def test_a_refresh_gives_a_new_pair_and_retires_the_old_one(host, tokens_of):
    first = tokens_of()
    second = host.refresh(first["refresh_token"]).json()
    assert whoami(second["access_token"]).status_code == 200
    refused(whoami(first["access_token"]), 401, "token_invalid")
    assert host.refresh(first["refresh_token"]).json()["error"] == "invalid_grant"


def test_a_refresh_token_used_twice_revokes_its_whole_family(host, tokens_of):
    first = tokens_of()
    second = host.refresh(first["refresh_token"]).json()
    host.refresh(first["refresh_token"])  # replayed: whoever holds it is not the client
    refused(whoami(second["access_token"]), 401, "token_invalid")
    assert host.refresh(second["refresh_token"]).json()["error"] == "invalid_grant"


def test_a_revoked_access_token_is_token_invalid(host, tokens_of):
    answer = tokens_of()
    response = host.client.post("/oauth/revoke", f"client_id={host.client_id}&token={answer['access_token']}",
                                content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    refused(whoami(answer["access_token"]), 401, "token_invalid")


def test_a_revoked_refresh_token_is_refused_and_its_access_token_with_it(host, tokens_of):
    answer = tokens_of()
    host.client.post("/oauth/revoke", f"client_id={host.client_id}&token={answer['refresh_token']}",
                     content_type="application/x-www-form-urlencoded")
    assert host.refresh(answer["refresh_token"]).json()["error"] == "invalid_grant"
    refused(whoami(answer["access_token"]), 401, "token_invalid")


def test_denying_tells_the_client_access_denied_and_stores_nothing(host, keeper_browser):
    authorization = host.authorize(keeper_browser, allow=False)
    assert (authorization.answer["error"], authorization.answer["iss"]) == ("access_denied", ISSUER)
    assert (LineGrant.objects.count(), Token.objects.count(), Grant.objects.count()) == (0, 0, 0)


def test_a_client_cannot_skip_the_consent_page_of_a_human_who_allowed_it_before(host, keeper_browser):
    host.tokens(keeper_browser)
    page, _ = host.consent_page(keeper_browser, approval_prompt="auto")
    assert page.status_code == 200 and "form" in page.context
    assert LineGrant.objects.count() == 1


def test_a_consent_whose_request_fails_its_checks_stores_no_grant_and_no_line(host, keeper_browser):
    page, authorization = host.consent_page(keeper_browser)
    form = page.context["form"]
    data = {name: form[name].value() or "" for name in form.fields if form.fields[name].widget.is_hidden}
    data.update(redirect_uri="http://127.0.0.1:9/stolen", line="new", handle="tampered", rights=["read"],
                allow="Allow")
    response = keeper_browser.post("/oauth/authorize", data)
    assert response.status_code == 400 and "Location" not in response
    assert (LineGrant.objects.count(), Token.objects.count(), Grant.objects.count()) == (0, 0, 0)


def redirected_error(page):
    assert page.status_code == 302, page.content
    location = page["Location"]
    assert location.startswith(REDIRECT_URI), location
    return redirect_query(page)


def assert_no_tokens(response, error="invalid_grant", already=0):
    """Refused with `error`, and no more tokens issued than `already` (registration's own access token,
    RFC 7592, is not one a client acts with)."""
    assert (response.status_code, response.json()["error"]) == (400, error), response.content
    issued = AccessToken.objects.exclude(scope=oauth2_settings.DCR_REGISTRATION_SCOPE)
    assert issued.count() == RefreshToken.objects.count() == already
