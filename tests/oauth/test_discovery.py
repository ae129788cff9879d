"""How a host finds out that it may sign in (MCP authorization, Authorization Server Discovery): the
protected resource's metadata (RFC 9728), named by every 401's challenge, the authorization server's
(RFC 8414); and /mcp/oauth, which answers a request without a valid token 401 so that a host starts its
flow, while /mcp answers as it always did."""
import json
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from mcp_bridge.http import mounted
from oauth.door import signed_in
from tests.asgi_client import McpAsgiClient

from forum.models import Message
from tests.forum.expect import refused
from tests.mcp_bridge.conftest import McpAgent, refusal
from tests.oauth.conftest import ISSUER, bearer

RESOURCE_METADATA = f"{ISSUER}/.well-known/oauth-protected-resource"
CHALLENGE = f'Bearer realm="parley", resource_metadata="{RESOURCE_METADATA}"'
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def get_json(path):
    response = Client().get(path)
    assert (response.status_code, response["Content-Type"]) == (200, "application/json"), response.content
    return response.json()


@pytest.mark.parametrize("path, resource", [("", ISSUER), ("/mcp", f"{ISSUER}/mcp"),
                                            ("/mcp/oauth", f"{ISSUER}/mcp/oauth")])
def test_the_resource_metadata_names_its_resource_and_this_authorization_server(db, path, resource):
    document = get_json(f"/.well-known/oauth-protected-resource{path}")
    assert document == {"resource": resource, "authorization_servers": [ISSUER],
                        "scopes_supported": ["read", "write"], "bearer_methods_supported": ["header"],
                        "resource_name": "Parley"}


def test_the_authorization_server_offers_code_with_s256_pkce_and_names_itself_in_answers(db):
    document = get_json("/.well-known/oauth-authorization-server")
    assert document["issuer"] == ISSUER
    assert (document["response_types_supported"], document["code_challenge_methods_supported"]) == (
        ["code"], ["S256"])
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert document["authorization_response_iss_parameter_supported"] is True
    assert document["client_id_metadata_document_supported"] is True
    assert {key: document[key] for key in ("authorization_endpoint", "token_endpoint", "revocation_endpoint",
                                           "registration_endpoint")} == {
        "authorization_endpoint": f"{ISSUER}/oauth/authorize", "token_endpoint": f"{ISSUER}/oauth/token",
        "revocation_endpoint": f"{ISSUER}/oauth/revoke", "registration_endpoint": f"{ISSUER}/oauth/register"}
    assert set(document["scopes_supported"]) == {"read", "write", "lock", "verify"}


def test_dynamic_registration_can_be_turned_off(db, settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "DCR_ENABLED": False}
    assert "registration_endpoint" not in get_json("/.well-known/oauth-authorization-server")
    assert Client().post("/oauth/register", {}, content_type="application/json").status_code == 404


def test_a_rest_401_names_the_resource_metadata_and_keeps_its_body(db):
    response = Client().get("/api/v1/inbox")
    refused(response, 401, "token_invalid")
    assert response["WWW-Authenticate"] == CHALLENGE
    assert response.json() == {"error": {"reason": "token_invalid", "message": "a valid bearer token is required",
                                         "detail": {}}}


@pytest.mark.parametrize("headers", [{}, bearer("pt_not-a-token"), bearer("pa_not-a-token"),
                                     {"HTTP_AUTHORIZATION": "Basic dXNlcjpwdw=="}])
def test_mcp_oauth_answers_a_request_without_a_valid_token_401_with_the_challenge(db, headers):
    response = Client().post("/mcp/oauth", PING, content_type="application/json", **headers)
    assert (response.status_code, response["WWW-Authenticate"]) == (401, CHALLENGE)
    assert response.json()["error"]["data"]["error"]["reason"] == "token_invalid"


def test_mcp_oauth_serves_the_mcp_server_to_a_valid_token(tokens_of):
    agent = McpAgent(None)
    access = tokens_of(rights=("read", "write"))["access_token"]
    response = agent.client.post("/mcp/oauth", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                           "params": {"name": "whoami", "arguments": {}}}),
                                 content_type="application/json", **bearer(access))
    assert response.status_code == 200
    assert response.json()["result"]["structuredContent"]["identity"] == "ainotes:claude-host"


def test_mcp_oauth_serves_a_lines_own_secret_too(alice):
    response = Client().post("/mcp/oauth", PING, content_type="application/json", **bearer(alice.secret))
    assert (response.status_code, response.json()["result"]) == (200, {})


def test_mcp_still_serves_discovery_without_a_token_and_refuses_a_tool_call_as_a_tool_result(db):
    assert McpAgent(None).request("ping").json()["result"] == {}
    error = refusal(McpAgent(None).call("post", {"kind": "ask", "body": "No token"}))
    assert (error["reason"], error["status"]) == ("token_invalid", 401)
    assert Message.objects.count() == 0


def test_the_discovery_urls_a_host_probes_first_are_found(db):
    """mcp-remote and the TypeScript SDK try the path form for /mcp, then the issuer's RFC 8414 document."""
    resource = get_json("/.well-known/oauth-protected-resource/mcp")
    issuer = resource["authorization_servers"][0]
    assert get_json(f"{issuer.removeprefix(ISSUER)}/.well-known/oauth-authorization-server")["issuer"] == issuer


@pytest.mark.django_db(transaction=True)  # the door checks the token on a request thread of its own
def test_the_served_door_of_mcp_oauth_challenges_without_a_token_logs_it_and_serves_with_one(alice, caplog):
    caplog.set_level(logging.INFO, logger="parley.request")
    pool = ThreadPoolExecutor(max_workers=1)
    client = McpAsgiClient(app=signed_in(mounted(None), pool))
    try:
        refused_here = client.post("/mcp/oauth", json.dumps(PING))
        served = client.post("/mcp/oauth", json.dumps(PING), headers={"Authorization": f"Bearer {alice.secret}"})
    finally:
        pool.submit(lambda: connection.close()).result()  # the pool thread's own connection
        pool.shutdown()
    assert (refused_here.status_code, refused_here["WWW-Authenticate"]) == (401, CHALLENGE)
    assert refused_here.json()["error"]["data"]["error"]["reason"] == "token_invalid"
    assert (served.status_code, served.json()["result"]) == (200, {})
    assert [record.getMessage() for record in caplog.records] == ["POST /mcp/oauth 401", "POST /mcp/oauth 200"]
