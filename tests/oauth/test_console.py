"""OAuth grants in the console: a human sees and revokes the grants they made; with Django's permissions on
grants, everyone's. django-oauth-toolkit's own rows stay out of the console."""
from django.contrib.auth.models import Permission
from django.test import Client

from oauth.models import LineGrant
from tests.console.console import logged_in, reports
from tests.forum.expect import refused
from tests.oauth.conftest import bearer

GRANTS = "/admin/oauth/linegrant/"


def revoke(browser, *grants):
    return browser.post(GRANTS, {"action": "revoke", "_selected_action": [grant.pk for grant in grants]}, follow=True)


def test_the_console_lists_the_grants_a_human_made_with_their_client_line_and_rights(tokens_of, keeper_browser):
    tokens_of(handle="claude-web", rights=("read", "write"))
    page = keeper_browser.get(GRANTS)
    text = page.content.decode()
    assert page.status_code == 200
    assert all(part in text for part in ("Claude-like host", "ainotes:claude-web", "read, write", "active"))


def test_a_human_revokes_a_grant_they_made_and_its_client_is_refused_at_once(tokens_of, keeper_browser):
    access = tokens_of()["access_token"]
    grant = LineGrant.objects.get()
    assert [level for level, _ in reports(revoke(keeper_browser, grant))] == ["success"]
    refused(Client().get("/api/v1/whoami", **bearer(access)), 401, "token_invalid")
    assert "revoked" in keeper_browser.get(GRANTS).content.decode()


def test_another_human_sees_no_grant_of_others_and_may_not_revoke_one(tokens_of, token_keeper):
    access = tokens_of()["access_token"]
    other = logged_in(token_keeper)
    assert "Claude-like host" not in other.get(GRANTS).content.decode()
    assert [level for level, _ in reports(revoke(other, LineGrant.objects.get()))] == []
    assert Client().get("/api/v1/whoami", **bearer(access)).status_code == 200


def test_with_the_permissions_on_grants_a_human_sees_and_revokes_everyones(tokens_of, token_keeper):
    access = tokens_of()["access_token"]
    token_keeper.user_permissions.add(*Permission.objects.filter(content_type__app_label="oauth"))
    other = logged_in(token_keeper)
    assert "Claude-like host" in other.get(GRANTS).content.decode()
    assert [level for level, _ in reports(revoke(other, LineGrant.objects.get()))] == ["success"]
    refused(Client().get("/api/v1/whoami", **bearer(access)), 401, "token_invalid")


def test_staff_who_may_not_grant_see_no_grants_page(staff_reader):
    assert logged_in(staff_reader).get(GRANTS).status_code == 403


def test_the_toolkits_own_rows_stay_out_of_the_console(keeper_browser):
    index = keeper_browser.get("/admin/").content.decode()
    assert "/admin/oauth/linegrant/" in index and "/admin/oauth2_provider/" not in index


def test_the_grants_page_speaks_german(tokens_of, keeper):
    tokens_of()
    browser = logged_in(keeper)
    text = browser.get(GRANTS, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "OAuth-Freigaben" in text and "Ausgewählte Freigaben widerrufen" in text and "Aktiv" in text
