"""The consent page (Parley v1 §2): a human grants a client a line and rights, never more than they may
grant (oauth.policies): a moderator every right, staff who only read `read`; a new line needs
`forum.add_token`, lending an existing one `forum.change_token`; a line lends at most its own rights."""
import pytest
from oauth2_provider.models import Grant

from forum.actors import Actor
from forum.models import Token
from forum.tokens import token_revoke
from oauth.models import LineGrant
from tests.console.console import grant, logged_in


def stored_nothing(before_tokens):
    assert (LineGrant.objects.count(), Grant.objects.count(), Token.objects.count()) == (0, 0, before_tokens)


def consent_error(authorization):
    page = authorization.answer["page"]
    assert page.status_code == 200
    return page.context["form"].errors


def test_a_moderator_keeping_the_tokens_may_grant_lock_and_verify(host, keeper_browser):
    answer = host.tokens(keeper_browser, rights=("read", "write", "lock", "verify"))
    assert answer["scope"] == "lock read verify write"
    assert LineGrant.objects.get().granted_rights == {"read", "write", "lock", "verify"}


def test_staff_keeping_the_tokens_without_moderating_are_offered_read_only(host, token_keeper):
    page, _ = host.consent_page(logged_in(token_keeper))
    assert [value for value, _ in page.context["form"].fields["rights"].choices] == ["read"]


def test_staff_keeping_the_tokens_without_moderating_may_not_grant_write(host, token_keeper):
    authorization = host.authorize(logged_in(token_keeper), rights=("read", "write"))
    assert "write" in str(consent_error(authorization))
    stored_nothing(0)


def test_staff_keeping_the_tokens_without_moderating_may_grant_read(host, token_keeper):
    assert host.tokens(logged_in(token_keeper), rights=("read",))["scope"] == "read"


@pytest.mark.parametrize("persona", ["moderator", "staff_reader"])
def test_a_human_without_token_permissions_may_not_grant_at_all(host, persona, request):
    page, _ = host.consent_page(logged_in(request.getfixturevalue(persona)))
    assert page.status_code == 403
    assert "add tokens" in page.content.decode()


def test_lending_an_existing_line_needs_the_permission_to_change_tokens(host, moderator, alice):
    creator = logged_in(grant(moderator, "add_token"))
    page, _ = host.consent_page(creator)
    assert [value for value, _ in page.context["form"].fields["line"].choices] == ["new"]
    authorization = host.authorize(creator, line=str(alice.pk))
    assert "line" in consent_error(authorization)
    stored_nothing(1)


def test_an_existing_line_is_lent_with_the_rights_chosen(host, keeper_browser, alice):
    answer = host.tokens(keeper_browser, line=str(alice.pk), rights=("read",))
    assert answer["scope"] == "read"
    grant_row = LineGrant.objects.get()
    assert (grant_row.token, grant_row.granted_rights) == (alice, {"read"})


def test_an_existing_line_lends_at_most_its_own_rights(host, keeper_browser, alice):
    authorization = host.authorize(keeper_browser, line=str(alice.pk), rights=("read", "lock"))
    assert "lock" in str(consent_error(authorization))
    stored_nothing(1)


def test_a_revoked_line_is_neither_offered_nor_lent(host, keeper_browser, alice, bob):
    token_revoke(Actor.for_operator("tests"), bob.pk)
    page, _ = host.consent_page(keeper_browser)
    assert str(bob.pk) not in [value for value, _ in page.context["form"].fields["line"].choices]
    authorization = host.authorize(keeper_browser, line=str(bob.pk), rights=("read",))
    assert "line" in consent_error(authorization)
    stored_nothing(2)


def test_a_new_line_needs_a_handle_of_its_own(host, keeper_browser, alice):
    assert "handle" in consent_error(host.authorize(keeper_browser, handle=""))
    assert "alice" in str(consent_error(host.authorize(keeper_browser, handle="alice")))
    stored_nothing(1)


def test_a_grant_needs_at_least_one_right(host, keeper_browser):
    assert "right" in str(consent_error(host.authorize(keeper_browser, rights=())))
    stored_nothing(0)


def test_the_consent_page_names_the_client_where_it_comes_from_and_where_the_browser_goes(host, keeper_browser):
    page, _ = host.consent_page(keeper_browser)
    client = page.context["client"]
    assert (client.name, client.client_id, client.redirect_host) == ("Claude-like host", host.client_id, "127.0.0.1")
    assert "registered itself" in client.origin
    text = page.content.decode()
    assert 'id="loopback-warning"' in text and "<strong>127.0.0.1</strong>" in text


def test_the_consent_page_offers_the_requested_rights_it_may_and_never_lock_unasked(host, keeper_browser):
    page, _ = host.consent_page(keeper_browser, scope="read write lock verify")
    rights = page.context["form"].fields["rights"]
    assert [value for value, _ in rights.choices] == ["read", "write", "lock", "verify"]
    assert rights.initial == ["read", "write"]


def test_the_consent_page_speaks_german(host, keeper):
    browser = logged_in(keeper)
    browser.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    page, _ = host.consent_page(browser)
    text = page.content.decode()
    assert "Zulassen" in text and "Ablehnen" in text and "Rechte" in text
