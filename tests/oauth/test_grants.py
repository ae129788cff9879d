"""An access token acts as its grant's line (Parley v1 §2, §3): the line's identity, rate limit, slots and
webhooks, with the rights granted that the line still has. Revoking the grant ends the client's access
and leaves the line; revoking or expiring the line ends its grants; rotating the line's secret leaves them."""
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from feed.slots import owner_key
from forum.actors import Actor
from forum.models import Message
from forum.selectors import actor_key, current_actors
from forum.tokens import token_authenticate, token_revoke, token_rotate, token_update
from oauth.models import LineGrant
from oauth.services import grant_revoke
from tests.conftest import Agent
from tests.forum.expect import refused
from tests.mcp_bridge.conftest import McpAgent, refusal
from tests.oauth.conftest import bearer

OPERATOR = Actor.for_operator("tests")


class Secret:
    """What tests.conftest.Agent and McpAgent take: something with a `secret`."""

    def __init__(self, secret):
        self.secret = secret


@pytest.fixture
def alice_grant(tokens_of, alice):
    """A client acting as alice's line, granted read and write."""
    return tokens_of(line=str(alice.pk), rights=("read", "write"))


@pytest.fixture
def as_client(alice_grant):
    return Agent(Secret(alice_grant["access_token"]))


def test_a_message_posted_through_a_grant_is_the_lines(as_client, alice):
    response = as_client.say("ask", "Posted by a hosted connector")
    assert response.status_code == 201, response.json()
    message = Message.objects.get()
    assert (message.author_identity, message.token_id) == ("ainotes:alice", alice.pk)


def test_mcp_answers_a_grant_as_it_answers_the_lines_own_secret(alice_grant, alice):
    through_grant = McpAgent(Secret(alice_grant["access_token"])).call("whoami")
    assert through_grant["structuredContent"] == McpAgent(alice).call("whoami")["structuredContent"]


def test_a_grant_acts_with_the_rights_granted_that_the_line_still_has(tokens_of, as_mod, mod):
    answer = tokens_of(line=str(mod.pk), rights=("read", "lock"))
    as_client = Agent(Secret(answer["access_token"]))
    assert as_client.get("/api/v1/whoami").json()["rights"] == ["read", "lock"]
    refused(as_client.say("ask", "No write was granted"), 403, "token_right_missing", right="write")
    token_update(OPERATOR, mod.pk, {"read", "write"}, mod.label)
    assert as_client.get("/api/v1/whoami").json()["rights"] == ["read"]
    assert Message.objects.count() == 0


def test_writes_through_a_grant_count_against_the_lines_rate_limit(as_client, as_alice, settings):
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 2}
    assert as_alice.say("ask", "First, with the line's own secret").status_code == 201
    assert as_client.say("ask", "Second, through the grant").status_code == 201
    refused(as_client.say("ask", "Third"), 429, "rate_limited")
    refused(as_alice.say("ask", "Fourth"), 429, "rate_limited")
    assert Message.objects.count() == 2


def test_a_grant_holds_the_lines_wait_and_stream_slots(alice_grant, alice):
    through_grant = token_authenticate(alice_grant["access_token"])
    assert owner_key(through_grant) == owner_key(Actor.for_token(alice))


def test_webhooks_made_through_a_grant_are_the_lines(as_client, as_alice, settings):
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = True
    created = as_client.post("/api/v1/webhooks", {"url": "https://127.0.0.1/hook", "topics": ["inbox"]})
    assert created.status_code == 201, created.json()
    assert [hook["id"] for hook in as_alice.get("/api/v1/webhooks").json()["items"]] == [created.json()["id"]]


def test_revoking_a_grant_ends_its_tokens_and_leaves_the_line(host, keeper, alice_grant, as_client, as_alice):
    grant_revoke(keeper, LineGrant.objects.get().pk)
    refused(as_client.get("/api/v1/whoami"), 401, "token_invalid")
    assert host.refresh(alice_grant["refresh_token"]).json()["error"] == "invalid_grant"
    assert as_alice.get("/api/v1/whoami").status_code == 200


def test_revoking_the_line_ends_its_grants(as_client, alice):
    token_revoke(OPERATOR, alice.pk)
    refused(as_client.get("/api/v1/whoami"), 401, "token_invalid")


def test_a_line_that_expires_ends_its_grants_and_their_refresh(host, alice_grant, as_client, alice):
    token_update(OPERATOR, alice.pk, alice.rights, alice.label, expires_at=timezone.now() - timedelta(seconds=1))
    refused(as_client.get("/api/v1/whoami"), 401, "token_invalid")
    assert host.refresh(alice_grant["refresh_token"]).json()["error"] == "invalid_grant"


def test_rotating_the_lines_secret_leaves_its_grants_working(as_client, alice):
    token_rotate(OPERATOR, alice.pk)
    assert as_client.get("/api/v1/whoami").json()["identity"] == "ainotes:alice"


def test_an_open_stream_of_a_revoked_grant_is_told_at_its_next_check(keeper, alice_grant, alice):
    through_grant = token_authenticate(alice_grant["access_token"])
    key = actor_key(through_grant)
    assert current_actors([key])[key] == through_grant
    grant_revoke(keeper, LineGrant.objects.get().pk)
    assert current_actors([key])[key] is None
    assert current_actors([actor_key(Actor.for_token(alice))]) != {}  # the line's own streams go on


def test_a_grant_records_when_it_and_its_line_were_last_used(as_client, alice):
    as_client.get("/api/v1/whoami")
    alice.refresh_from_db()
    assert LineGrant.objects.get().last_used_at is not None and alice.last_used_at is not None


def test_an_access_token_of_a_revoked_grant_is_refused_over_mcp_as_a_tool_error(keeper, alice_grant):
    grant_revoke(keeper, LineGrant.objects.get().pk)
    error = refusal(McpAgent(Secret(alice_grant["access_token"])).call("whoami"))
    assert (error["reason"], error["status"]) == ("token_invalid", 401)


def test_an_unknown_access_token_is_token_invalid_with_the_challenge(db):
    response = Client().get("/api/v1/whoami", **bearer("pa_not-an-issued-token"))
    refused(response, 401, "token_invalid")
    assert response["WWW-Authenticate"] == ('Bearer realm="parley", resource_metadata='
                                            '"http://127.0.0.1:8000/.well-known/oauth-protected-resource"')


def test_an_access_token_costs_one_query_more_than_the_lines_own_secret(as_client, as_alice,
                                                                          django_assert_num_queries):
    """The access token with its refresh token (whose family names the grant), then the grant with its line:
    two lookups where the line's own secret takes one; whoami itself reads the line's rooms (§20) in one more.
    Uses are recorded once a minute: not counted here."""
    as_client.get("/api/v1/whoami"), as_alice.get("/api/v1/whoami")
    with django_assert_num_queries(2):
        as_alice.get("/api/v1/whoami")
    with django_assert_num_queries(3):
        as_client.get("/api/v1/whoami")
