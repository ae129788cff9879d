"""§18 over MCP: put_artifact stores UTF-8 text and answers as the upload does, read_artifact answers the
meta and a textual artifact's text, the parley://artifacts/{id} resource is what read_artifact answers;
and every refusal of §18 is the same through both doors (tests/mcp_bridge/test_parity.py's habit)."""
import json

import pytest

from tests.conftest import Agent
from tests.evidence.conftest import TEXT, artifact_id, nothing_stored, upload
from tests.mcp_bridge.conftest import McpAgent, refusal

UNKNOWN = "sha256:" + "0" * 64


def ok(result):
    assert result["isError"] is False, result["structuredContent"]
    return result["structuredContent"]


def test_put_artifact_stores_text_and_answers_what_the_meta_then_reads(alice, bob):
    written = ok(McpAgent(alice).call("put_artifact", {"text": "3 tests failed."}))
    assert written["artifact"]["id"] == artifact_id("3 tests failed.".encode())
    assert written["artifact"]["media_type"] == "text/plain; charset=utf-8"
    assert Agent(bob).get(f"/api/v1/artifacts/{written['artifact']['id']}/meta").json() == written


def test_put_artifact_of_bytes_uploaded_over_rest_answers_the_stored_artifact(alice, bob):
    uploaded = upload(Agent(alice), TEXT, "text/markdown")
    again = ok(McpAgent(bob).call("put_artifact", {"text": TEXT.decode(), "media_type": "text/plain"}))
    assert again == uploaded.json()


def test_put_artifact_takes_a_media_type(alice):
    written = ok(McpAgent(alice).call("put_artifact", {"text": "{}", "media_type": "application/json"}))
    assert written["artifact"]["media_type"] == "application/json"


def test_read_artifact_answers_the_meta_and_the_text_of_a_textual_artifact(alice, bob):
    meta = upload(Agent(alice), TEXT, "text/plain").json()
    read = ok(McpAgent(bob).call("read_artifact", {"artifact": meta["artifact"]["id"]}))
    assert read == {**meta, "text": TEXT.decode(), "truncated": False}


def test_read_artifact_cuts_the_text_at_request_max_bytes_and_says_so(alice, bob, settings):
    data = b"x" * (settings.PARLEY_LIMITS["request_max_bytes"] + 10)
    stored = upload(Agent(alice), data, "text/plain").json()["artifact"]["id"]
    read = ok(McpAgent(bob).call("read_artifact", {"artifact": stored}))
    assert (len(read["text"]), read["truncated"]) == (settings.PARLEY_LIMITS["request_max_bytes"], True)


def test_read_artifact_answers_no_text_for_other_media_types(alice, bob):
    stored = upload(Agent(alice), b"\x89PNG\r\n", "image/png").json()
    assert ok(McpAgent(bob).call("read_artifact", {"artifact": stored["artifact"]["id"]})) == stored


def test_the_artifact_resource_is_what_read_artifact_answers(alice, bob):
    stored = upload(Agent(alice)).json()["artifact"]["id"]
    answer = McpAgent(bob).request("resources/read", {"uri": f"parley://artifacts/{stored}"}).json()
    (item,) = answer["result"]["contents"]
    assert json.loads(item["text"]) == ok(McpAgent(bob).call("read_artifact", {"artifact": stored}))


def test_a_malformed_id_is_invalid_body_over_mcp(bob):
    error = refusal(McpAgent(bob).call("read_artifact", {"artifact": "sha256:abc"}))
    assert (error["reason"], error["detail"]["field"]) == ("invalid_body", "artifact")


def test_put_artifact_refuses_a_malformed_media_type_naming_it(alice):
    with nothing_stored(uploads_counted=1):
        error = refusal(McpAgent(alice).call("put_artifact", {"text": "x", "media_type": "text"}))
    assert (error["reason"], error["detail"]["field"], error["status"]) == ("invalid_body", "media_type", 400)


@pytest.mark.parametrize("control", ["\r", "\n", "\r\n", "\x00", "\x7f", "\u00e9"])
def test_put_artifact_refuses_a_media_type_quoting_anything_but_visible_ascii(alice, control):
    with nothing_stored(uploads_counted=1):
        error = refusal(McpAgent(alice).call("put_artifact", {
            "text": "x", "media_type": f'text/plain; note="a{control}b"'}))
    assert (error["reason"], error["detail"]["field"], error["status"]) == ("invalid_body", "media_type", 400)


def test_put_artifact_keeps_a_quoted_parameter_of_visible_ascii_spaces_and_tabs(alice, bob):
    media_type = 'text/plain; note="a b\tc \\"d\\" ~!"'
    written = ok(McpAgent(alice).call("put_artifact", {"text": "x", "media_type": media_type}))
    assert written["artifact"]["media_type"] == media_type
    download = Agent(bob).get(f"/api/v1/artifacts/{written['artifact']['id']}")
    assert (download.status_code, download["Content-Type"]) == (200, media_type)


def test_a_put_over_request_max_bytes_is_refused_413_as_every_mcp_request(alice, settings):
    text = "x" * settings.PARLEY_LIMITS["request_max_bytes"]
    with nothing_stored():
        response = McpAgent(alice).request("tools/call", {"name": "put_artifact", "arguments": {"text": text}})
    assert response.status_code == 413
    assert response.json()["error"]["data"]["error"]["detail"]["limit"] == "request_max_bytes"


# --- refusals: each §18 refusal set up through REST, then asked through both doors ----------------------

class Personas:
    impostor = type("Impostor", (), {"secret": "pt_not-a-real-token"})

    def __init__(self, request):
        for name in ("alice", "bob", "mod", "mallory", "settings", "make_token"):
            setattr(self, name, request.getfixturevalue(name))

    def stored(self, data=TEXT):
        response = upload(Agent(self.alice), data)
        assert response.status_code == 201
        return response.json()["artifact"]["id"]

    def redacted(self):
        artifact = self.stored()
        assert Agent(self.mod).post(f"/api/v1/artifacts/{artifact}/redact").status_code == 200
        return artifact


# (token, REST request, tool, arguments); a REST request is an upload (bytes) or a path to GET or POST.
def case_put_without_a_token(p):
    return p.impostor, ("upload", TEXT), "put_artifact", {"text": TEXT.decode()}


def case_put_without_write(p):
    return p.mallory, ("upload", TEXT), "put_artifact", {"text": TEXT.decode()}


def case_put_of_redacted_bytes(p):
    p.redacted()
    return p.bob, ("upload", TEXT), "put_artifact", {"text": TEXT.decode()}


def case_put_over_the_rate_limit(p):
    p.settings.PARLEY_LIMITS = {**p.settings.PARLEY_LIMITS, "writes_per_minute": 1}
    p.stored(b"the one write of the minute")
    return p.alice, ("upload", TEXT), "put_artifact", {"text": TEXT.decode()}


def case_put_over_the_storage_quota(p):
    p.settings.PARLEY_EVIDENCE = {**p.settings.PARLEY_EVIDENCE, "artifact_bytes_per_token_max": len(TEXT) + 1}
    p.stored(b"two bytes")
    return p.alice, ("upload", TEXT), "put_artifact", {"text": TEXT.decode()}


def case_put_counted_after_refusals(p):
    p.settings.PARLEY_LIMITS = {**p.settings.PARLEY_LIMITS, "writes_per_minute": 1}
    assert upload(Agent(p.alice), TEXT, "text").status_code == 400  # refused, and counted
    return p.alice, ("upload", TEXT), "put_artifact", {"text": TEXT.decode()}


def case_read_without_read(p):
    artifact = p.stored()
    return p.make_token("writer", ("write",)), ("GET", f"/api/v1/artifacts/{artifact}/meta"), "read_artifact", \
        {"artifact": artifact}


def case_read_of_an_unknown_artifact(p):
    return p.bob, ("GET", f"/api/v1/artifacts/{UNKNOWN}/meta"), "read_artifact", {"artifact": UNKNOWN}


def case_read_of_a_redacted_artifact(p):
    artifact = p.redacted()
    return p.bob, ("GET", f"/api/v1/artifacts/{artifact}/meta"), "read_artifact", {"artifact": artifact}


def case_redact_without_lock(p):
    artifact = p.stored()
    return p.bob, ("POST", f"/api/v1/artifacts/{artifact}/redact"), "redact_artifact", {"artifact": artifact}


def case_redact_of_an_unknown_artifact(p):
    return p.mod, ("POST", f"/api/v1/artifacts/{UNKNOWN}/redact"), "redact_artifact", {"artifact": UNKNOWN}


def case_redact_twice(p):
    artifact = p.redacted()
    return p.mod, ("POST", f"/api/v1/artifacts/{artifact}/redact"), "redact_artifact", {"artifact": artifact}


CASES = {name.removeprefix("case_"): case for name, case in globals().items() if name.startswith("case_")}
EXPECTED = {
    "put_without_a_token": "token_invalid", "put_without_write": "token_right_missing",
    "put_of_redacted_bytes": "not_found", "put_over_the_rate_limit": "rate_limited",
    "read_without_read": "token_right_missing", "read_of_an_unknown_artifact": "not_found",
    "read_of_a_redacted_artifact": "not_found", "redact_without_lock": "token_right_missing",
    "redact_of_an_unknown_artifact": "not_found", "redact_twice": "invalid_transition",
    "put_over_the_storage_quota": "limit_exceeded", "put_counted_after_refusals": "rate_limited",
}
# Refused uploads counted against the rate limit, one per door (issue 22); rate_limited is not counted.
COUNTED = {"put_without_write": 2, "put_of_redacted_bytes": 2, "put_over_the_storage_quota": 2}


def rest(token, request):
    agent = Agent(token)
    method, value = request
    if method == "upload":
        return upload(agent, value)
    return agent.get(value) if method == "GET" else agent.post(value)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_refusal_of_section_18_is_the_same_through_both_doors_and_stores_nothing(case, request, db):
    token, rest_request, tool, arguments = CASES[case](Personas(request))
    with nothing_stored(uploads_counted=COUNTED.get(case, 0)):
        over_rest = rest(token, rest_request)
        over_mcp = refusal(McpAgent(token).call(tool, arguments))
    rest_error = over_rest.json()["error"]
    assert rest_error["reason"] == EXPECTED[case]
    if rest_error["reason"] == "rate_limited":  # seconds left in the window: the calls may straddle a second
        assert abs(over_mcp["detail"].pop("retry_after") - rest_error["detail"].pop("retry_after")) <= 1
    assert over_mcp == {**rest_error, "status": over_rest.status_code}
