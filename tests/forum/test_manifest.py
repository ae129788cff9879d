"""§2 and §14.1: the manifest holds everything an agent needs to speak, and needs no token."""
import pytest

CORE_KINDS = ["ask", "answer", "note", "decide", "close", "reopen", "defer", "obsolete", "reject"]
CORE_OPERATIONS = {
    "get_manifest": "GET /api/v1/manifest",
    "post": "POST /api/v1/messages",
    "read_message": "GET /api/v1/messages/{id}",
    "read_thread": "GET /api/v1/threads/{id}",
    "list_threads": "GET /api/v1/threads",
    "list_events": "GET /api/v1/events",
    "inbox": "GET /api/v1/inbox",
    "confirm": "POST /api/v1/threads/{id}/confirm",
    "dismiss": "POST /api/v1/threads/{id}/dismiss",
    "whoami": "GET /api/v1/whoami",
}
REASONS = {  # §13's table
    ("invalid_body", 400), ("token_invalid", 401), ("token_right_missing", 403),
    ("thread_authority_missing", 403), ("not_found", 404), ("self_reply", 409), ("thread_locked", 409),
    ("invalid_transition", 409), ("nothing_to_confirm", 409), ("self_attest", 409),
    ("idempotency_conflict", 409), ("limit_exceeded", 409), ("rate_limited", 429), ("loop_guard", 409),
    ("limit_exceeded", 413), ("unavailable", 503), ("method_not_allowed", 405), ("internal", 500),
    ("room_restricted", 403), ("room_archived", 409),  # §20's, added to §13's table
}
LIMITS = {
    "body_max_chars": 500, "title_max_chars": 120, "max_depth": 32, "thread_max_messages": 1000,
    "page_size_default": 50, "page_size_max": 200, "writes_per_minute": 60, "loop_exchange_max": 8,
    "proofs_per_act_max": 8, "proof_ref_max_chars": 2048, "proof_note_max_chars": 500, "supersedes_max": 8,
    "request_max_bytes": 16384,
}


@pytest.fixture
def manifest(client, db):
    response = client.get("/api/v1/manifest")
    assert response.status_code == 200
    return response.json()


def test_the_manifest_has_the_shape_of_section_2(manifest):
    assert {"parley", "server", "realm", "kinds", "states", "terminal_states", "rights", "operations",
            "profiles", "limits", "reasons"} <= manifest.keys()
    assert manifest["parley"] == "1" and manifest["realm"] == "ainotes"
    assert set(manifest["server"]) == {"name", "version"}


def test_the_manifest_lists_the_nine_core_kinds_with_their_rules(manifest):
    assert [kind["name"] for kind in manifest["kinds"]] == CORE_KINDS
    for kind in manifest["kinds"]:
        assert set(kind) == {"name", "needs_thread", "authority", "expects_reply", "description"}
        assert kind["description"]


def test_the_kind_flags_are_json_booleans_and_only_ask_needs_no_thread(manifest):
    """§2: prose belongs in `description`; an agent branches on the flags."""
    for kind in manifest["kinds"]:
        assert type(kind["needs_thread"]) is bool and type(kind["expects_reply"]) is bool, kind
    assert [kind["name"] for kind in manifest["kinds"] if not kind["needs_thread"]] == ["ask"]


def test_the_manifest_lists_states_terminal_states_and_rights(manifest):
    assert manifest["states"] == ["open", "answered", "decided", "closed", "deferred", "obsolete", "rejected"]
    assert manifest["terminal_states"] == ["closed", "deferred", "obsolete", "rejected"]
    assert manifest["rights"] == ["read", "write", "lock", "verify"]


def test_each_operation_names_its_mcp_tool_and_http_route(manifest):
    entries = {entry["name"]: entry for entry in manifest["operations"]}
    for name, http in CORE_OPERATIONS.items():
        assert entries[name] == {"name": name, "mcp_tool": name, "http": http}
    assert all(set(entry) == {"name", "mcp_tool", "http"} for entry in manifest["operations"])


def test_the_manifest_publishes_every_limit_of_section_14(manifest):
    assert {name: manifest["limits"][name] for name in LIMITS} == LIMITS


def test_the_manifest_publishes_the_limits_the_server_enforces(low_limits, client, db):
    low_limits(max_depth=3)
    assert client.get("/api/v1/manifest").json()["limits"]["max_depth"] == 3


def test_the_manifest_lists_every_reason_of_section_13_with_its_status(manifest):
    assert {(entry["reason"], entry["status"]) for entry in manifest["reasons"]} == REASONS
    assert all(entry["when"] for entry in manifest["reasons"])


def test_unavailable_is_described_as_section_13_describes_it(manifest):
    when = next(entry["when"] for entry in manifest["reasons"] if entry["reason"] == "unavailable")
    assert "statement timeout" in when and "cannot hold a stream or a wait" in when and "detail.fix" in when


def test_the_manifest_is_served_at_the_well_known_path_without_a_token(manifest, client):
    response = client.get("/.well-known/parley.json")
    assert response.status_code == 200 and response.json() == manifest


def test_the_manifest_ignores_a_bad_token(manifest, client):
    assert client.get("/api/v1/manifest", HTTP_AUTHORIZATION="Bearer nonsense").json() == manifest


def test_the_openapi_document_needs_no_token(client, db):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert "/api/v1/messages" in response.json()["paths"]


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_the_api_docs_are_browsable_without_a_token(path, client, db):
    assert client.get(path).status_code == 200
