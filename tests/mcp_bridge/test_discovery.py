"""Parley v1 §2, MCP extensions and caching (the 2026-07-28 revision): `server/discover` advertises each
profile the server runs as an optional extension, and every cacheable result says for whom and how long it
stays fresh: what does not vary by caller is public for at least a minute, what is read with a token
private and stale at once."""
import anyio
import pytest
from mcp.shared.extension import validate_extension_identifier

from forum.dispatch import OPERATIONS
from forum.profiles import PROFILES, Profile
from tests.mcp_bridge.test_sdk import http_client

MODERN = "2026-07-28"
PUBLIC_MINIMUM_MS = 60_000
# One fixed order: the core's operations as §12 lists them, then each profile's (dialectic, evidence, rooms).
TOOL_ORDER = ["get_manifest", "whoami", "post", "read_message", "read_thread", "list_threads", "list_events", "inbox",
              "confirm", "dismiss", "redact", "read_claim", "list_claims", "put_artifact", "read_artifact",
              "redact_artifact", "export_attestation", "list_rooms", "read_room", "join_room", "leave_room",
              "move_thread", "read_reputation", "list_outcomes"]


def modern(mcp, method, params=None, token=None):
    """A request of the 2026-07-28 era: the revision in `_meta` and in the header, no handshake."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if params and "uri" in params:
        headers["Mcp-Name"] = params["uri"]  # the name a request bears travels in a header too
    response = mcp(token).request(method, {**(params or {}), "_meta": meta}, **headers)
    assert response.status_code == 200, response.content
    return response.json()["result"]


def test_discover_advertises_every_profile_as_an_extension_no_client_is_required_to_speak(asgi_live_server, alice):
    async def main():
        async with http_client(f"{asgi_live_server}/mcp", alice.secret, "auto") as client:
            return client.protocol_version, client.server_capabilities.extensions

    version, extensions = anyio.run(main)
    assert version == MODERN
    assert extensions == {"io.parley/dialectic": {"version": "1", "required": False},
                          "io.parley/evidence": {"version": "1", "required": False},
                          "io.parley/feed": {"version": "1", "required": False},
                          "io.parley/reputation": {"version": "1", "required": False},
                          "io.parley/rooms": {"version": "1", "required": False}}
    for identifier in extensions:
        validate_extension_identifier(identifier, owner="a Parley profile")  # SEP-2133's vendor-prefix/name


def test_a_profile_registered_later_is_advertised_by_itself(mcp, monkeypatch, db):
    monkeypatch.setitem(PROFILES, "later", Profile(name="later", manifest=dict))
    extensions = modern(mcp, "server/discover")["capabilities"]["extensions"]
    assert extensions["io.parley/later"] == {"version": "1", "required": False}
    assert set(extensions) == {f"io.parley/{name}" for name in PROFILES}


def test_the_handshake_era_initialize_keeps_its_capabilities_without_extensions(mcp, db):
    result = mcp(None).request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                              "clientInfo": {"name": "t", "version": "1"}}).json()["result"]
    assert "extensions" not in result["capabilities"]


@pytest.mark.parametrize("method", ["server/discover", "tools/list", "resources/templates/list"])
def test_a_result_that_does_not_vary_by_caller_is_public_for_at_least_a_minute(mcp, method, db):
    result = modern(mcp, method)
    assert result["cacheScope"] == "public"
    assert result["ttlMs"] >= PUBLIC_MINIMUM_MS


def test_a_resource_read_with_a_token_stays_private_and_stale_at_once(mcp, as_alice, bob):
    thread = as_alice.ask("Cache me not")
    for uri in ("parley://inbox", f"parley://threads/{thread}", "parley://manifest"):
        result = modern(mcp, "resources/read", {"uri": uri}, token=bob)
        assert (result["cacheScope"], result["ttlMs"]) == ("private", 0), uri


def test_tools_are_listed_in_one_fixed_order_in_both_eras_whoever_asks(mcp, alice, db):
    legacy = [tool["name"] for tool in mcp(None).request("tools/list").json()["result"]["tools"]]
    anonymous = [tool["name"] for tool in modern(mcp, "tools/list")["tools"]]
    with_token = modern(mcp, "tools/list", token=alice)["tools"]
    assert legacy == anonymous == [tool["name"] for tool in with_token] == TOOL_ORDER == list(OPERATIONS)
    assert with_token == modern(mcp, "tools/list")["tools"]  # the same bytes for everyone: a shared cache may serve it
