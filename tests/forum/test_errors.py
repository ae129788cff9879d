"""§13: refusals under /api/ are always JSON in §13's shape, and the precedence when several apply."""
import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from forum import selectors
from parley_site.views import MACHINE_PREFIXES
from tests.forum.expect import accepted, nothing_stored, refused

# For people, in HTML by design; a wrong path under them is the JSON 404 of any other.
DOCUMENTATION_PAGES = ("/api/schema/", "/api/docs/", "/api/redoc/")
MACHINE_PATHS = ["/api/v1/manifest", "/api/v1/threads/th_1", "/mcp", "/.well-known/parley.json", "/api/v1/nowhere"]


@pytest.mark.parametrize("path", ["/api/v1/nowhere", "/api/v2/messages", "/api/v1/messages/", "/.well-known/x"])
def test_an_unknown_api_path_answers_json_not_found(path, as_bob):
    refused(as_bob.get(path), 404, "not_found")


@pytest.mark.parametrize("method,path", [("delete", "/api/v1/messages"), ("get", "/api/v1/messages"),
                                         ("put", "/api/v1/threads/1"), ("get", "/api/v1/threads/1/confirm"),
                                         ("post", "/api/v1/inbox")])
def test_a_wrong_method_answers_json_405(method, path, as_bob):
    response = getattr(as_bob.client, method)(path)
    assert response.status_code == 405
    assert response.json()["error"]["reason"] == "method_not_allowed"


def test_a_wrong_method_names_itself_and_the_allowed_ones(as_bob):
    response = as_bob.client.delete("/api/v1/messages")
    assert refused(response, 405, "method_not_allowed")["detail"] == {"method": "DELETE"}
    assert "POST" in response["Allow"]


def test_an_unexpected_fault_is_json_500_internal_that_leaks_nothing(as_bob, monkeypatch):
    def fault(actor, **arguments):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(selectors, "thread_list", fault)  # what list_threads runs
    response = as_bob.get("/api/v1/threads")
    assert refused(response, 500, "internal") == {"reason": "internal", "message": "internal server error",
                                                  "detail": {}}
    assert b"secret" not in response.content


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("path", MACHINE_PATHS)
def test_a_foreign_host_under_a_machine_path_is_400_invalid_body_naming_host(path, debug, as_bob, settings):
    settings.ALLOWED_HOSTS, settings.DEBUG = ["parley.example"], debug
    with nothing_stored():
        response = as_bob.client.get(path, HTTP_HOST="attacker.example")
        assert refused(response, 400, "invalid_body")["detail"] == {"field": "Host"}
    assert b"attacker.example" not in response.content


def test_an_allowed_host_is_served_as_before(as_bob, settings):
    settings.ALLOWED_HOSTS = ["parley.example"]
    assert as_bob.client.get("/api/v1/manifest", HTTP_HOST="parley.example").status_code == 200


def test_a_foreign_host_outside_the_machine_paths_keeps_djangos_page(client, settings, db):
    settings.ALLOWED_HOSTS = ["parley.example"]
    response = client.get("/admin/", HTTP_HOST="attacker.example")
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")


def csrf_checking_client(token):
    """A client that checks CSRF like a real server does (Django's test client skips it by default)."""
    return Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {token.secret}")


@pytest.mark.parametrize("path", ["/api/v1/nowhere", "/api/v1/messages/", "/api/v2/messages", "/.well-known/x"])
def test_a_token_bearing_post_to_an_unknown_route_is_json_404_not_csrfs_page(path, bob):
    with nothing_stored():
        refused(csrf_checking_client(bob).post(path, "{}", content_type="application/json"), 404, "not_found")


def concrete_paths(patterns, prefix=""):
    """One request path per route: path converters filled with an id, the catch-all with an unknown route."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern).lstrip("^").rstrip("$")
        if isinstance(pattern, URLResolver):
            yield from concrete_paths(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield "/" + re.sub(r"<[^>]+>", "1", route.replace(r"(api|\.well-known)/", "api/nowhere"))


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE"])
def test_every_machine_route_answers_json_whatever_the_method(method, bob):
    """§14.1: under /api/, /mcp and /.well-known/ every answer is JSON, also to a cookie-less caller whose
    request CSRF's check would turn away."""
    client = csrf_checking_client(bob)
    paths = [path for path in concrete_paths(get_resolver().url_patterns)
             if path.startswith(MACHINE_PREFIXES) and path not in DOCUMENTATION_PAGES]
    assert len(paths) >= 15
    for path in paths:
        if path.endswith("/stream") and method == "GET":
            continue  # a stream that opens is not an answer to wait for here (tests/feed)
        response = client.generic(method, path, "{}", content_type="application/json")
        assert response["Content-Type"].startswith("application/json"), (method, path, response.status_code)


def test_malformed_json_is_refused(as_bob, db):
    with nothing_stored():
        response = as_bob.client.post("/api/v1/messages", '{"kind": "ask", "body": ', content_type="application/json")
        refused(response, 400, "invalid_body")


@pytest.mark.parametrize("text", ['{"kind": "ask", "body": NaN}', b'{"kind": "ask", "body": "\xff"}',
                                  "[" * 100 + "]" * 100])
def test_hostile_json_is_refused_not_crashed_on(text, as_bob, db):
    with nothing_stored():
        refused(as_bob.client.post("/api/v1/messages", text, content_type="application/json"), 400, "invalid_body")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_that_is_not_json_by_content_type_is_refused(content_type, as_bob, db):
    body = json.dumps({"kind": "ask", "body": "Hello?"})
    with nothing_stored():
        response = as_bob.client.generic("POST", "/api/v1/messages", body, content_type=content_type)
        assert refused(response, 400, "invalid_body")["detail"]["field"] == "Content-Type"


def test_json_with_a_charset_parameter_is_accepted(as_bob, db):
    body = json.dumps({"kind": "ask", "body": "Hello?"})
    accepted(as_bob.client.post("/api/v1/messages", body, content_type="application/json; charset=utf-8"))


@pytest.mark.postgres
def test_an_unreachable_database_is_503_unavailable_with_retry_after(transactional_db, bob, agent):
    if connection.vendor != "postgresql":
        pytest.skip("needs a database server to be away")
    port = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = 1  # nothing listens there
    try:
        response = agent(bob).say("ask", "Anyone home?")
    finally:
        connection.close()
        connection.settings_dict["PORT"] = port
    refused(response, 503, "unavailable")
    assert int(response["Retry-After"]) > 0


# --- precedence (§13): when several refusals apply, the first in the table's order wins -------------

def test_token_invalid_beats_an_oversized_request(db, client):
    response = client.post("/api/v1/messages", json.dumps({"body": "x" * 20000}), content_type="application/json")
    refused(response, 401, "token_invalid")


def test_an_oversized_request_beats_a_malformed_body(as_bob, db):
    response = as_bob.client.post("/api/v1/messages", json.dumps({"colour": "x" * 20000}),
                                  content_type="application/json")
    refused(response, 413, "limit_exceeded")


def test_a_malformed_body_beats_a_missing_right(as_mallory, db):
    refused(as_mallory.say("note", "", thread="th_999999"), 400, "invalid_body")


def test_a_missing_right_beats_an_unknown_thread(as_mallory, db):
    refused(as_mallory.say("note", "hi", thread="th_999999"), 403, "token_right_missing")


def test_a_missing_lock_right_beats_an_unknown_thread(as_alice, db):
    refused(as_alice.post("/api/v1/threads/th_999999/confirm"), 403, "token_right_missing")


def test_an_unknown_parent_beats_the_thread_lock(thread_in, as_mod):
    thread = thread_in("closed", confirmed=True)
    refused(as_mod.say("note", "hi", thread=thread, parent="msg_999999"), 404, "not_found")


def test_the_thread_lock_beats_missing_authority(thread_in, as_bob):
    thread = thread_in("closed", confirmed=True)
    refused(as_bob.say("decide", "mine", thread=thread), 409, "thread_locked")


def test_missing_authority_beats_an_invalid_transition(thread_in, as_bob):
    thread = thread_in("open")
    refused(as_bob.say("close", "mine", thread=thread), 403, "thread_authority_missing")


def test_a_self_reply_beats_an_exceeded_limit(low_limits, thread_in, as_alice):
    thread = thread_in("open")
    low_limits(thread_max_messages=1)
    refused(as_alice.say("note", "me again", thread=thread), 409, "self_reply")


def test_an_invalid_transition_beats_an_exceeded_limit(low_limits, thread_in, as_mod):
    thread = thread_in("open")
    low_limits(thread_max_messages=1)
    refused(as_mod.say("close", "done", thread=thread), 409, "invalid_transition")


def test_nothing_to_confirm_beats_the_rate_limit(low_limits, thread_in, as_mod):
    thread = thread_in("open")
    low_limits(writes_per_minute=1)
    accepted(as_mod.say("note", "uses the minute", thread=thread))
    refused(as_mod.post(f"/api/v1/threads/{thread}/confirm"), 409, "nothing_to_confirm")


def test_an_exceeded_limit_beats_the_loop_guard(low_limits, thread_in, as_bob, as_carol):
    low_limits(loop_exchange_max=2, thread_max_messages=3)
    thread = thread_in("open")
    accepted(as_bob.say("note", "ping", thread=thread))
    accepted(as_carol.say("note", "pong", thread=thread))
    refused(as_bob.say("note", "ping", thread=thread), 409, "limit_exceeded")


def test_the_loop_guard_beats_the_rate_limit(low_limits, thread_in, as_bob, as_carol):
    low_limits(loop_exchange_max=2)
    thread = thread_in("open")
    accepted(as_bob.say("note", "ping", thread=thread))
    accepted(as_carol.say("note", "pong", thread=thread))
    low_limits(loop_exchange_max=2, writes_per_minute=1)
    refused(as_bob.say("note", "ping", thread=thread), 409, "loop_guard")


PROOF = [{"kind": "url", "ref": "https://example.org/parley"}]


def test_an_unknown_claim_beats_the_lock(thread_in, as_carol):
    """A profile's objects are looked up with the core's, before thread_locked (§13)."""
    thread = thread_in("closed", confirmed=True)
    with nothing_stored():
        refused(as_carol.say("attest", "I agree", thread=thread, claim="cl_999999", proof=PROOF),
                404, "not_found")


def test_a_claim_of_another_thread_beats_the_lock(thread_in, as_bob, as_carol):
    elsewhere = thread_in("open")
    claim = accepted(as_bob.say("assert", "Parley listens on 8000", thread=elsewhere))["claim"]["id"]
    thread = thread_in("closed", confirmed=True)
    with nothing_stored():
        refused(as_carol.say("attest", "I agree", thread=thread, claim=claim, proof=PROOF), 400, "invalid_body")


def test_self_attest_beats_the_loop_guard(low_limits, thread_in, as_bob, as_carol):
    low_limits(loop_exchange_max=2)
    thread = thread_in("open")
    claim = accepted(as_bob.say("assert", "Parley listens on 8000", thread=thread))["claim"]["id"]
    accepted(as_carol.say("note", "pong", thread=thread))
    with nothing_stored():
        refused(as_bob.say("attest", "I agree with myself", thread=thread, claim=claim, proof=PROOF),
                409, "self_attest")


def test_a_line_attesting_its_own_claim_is_self_attest(thread_in, as_bob):
    """The one §13 reason the core's post path raises for a profile (§10): refused before anything is stored."""
    thread = thread_in("open")
    claim = accepted(as_bob.say("assert", "Parley listens on 8000", thread=thread))["claim"]["id"]
    with nothing_stored():
        refused(as_bob.say("attest", "I agree with myself", thread=thread, claim=claim, proof=PROOF),
                409, "self_attest")


@pytest.mark.parametrize("length", ["abc", "-1", "1e3"])
def test_a_content_length_that_is_not_a_number_is_refused(length, as_bob, db):
    with nothing_stored():
        response = as_bob.client.post("/api/v1/messages", '{"kind": "ask", "body": "x"}',
                                      content_type="application/json", CONTENT_LENGTH=length)
        assert refused(response, 400, "invalid_body")["detail"]["field"] == "Content-Length"
