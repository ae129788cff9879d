"""Contracts: the OpenAPI document validates, and real answers of every operation match the operation's
declared output schema (so forum/wire.py and forum/operations.py cannot drift from what is served)."""
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from jsonschema import Draft202012Validator

from forum.dispatch import OPERATIONS
from forum.wire import ERROR_SCHEMA, message_node_schema, with_message_nodes
from parley_site.errors import ParleyError
from tests.forum.expect import accepted
from tests.mcp_bridge.schema_walk import type_arrays

PROJECT = Path(__file__).resolve().parents[2]
SERVER_PACKAGES = ("parley_site", "forum", "dialectic", "mcp_bridge")


def conforms(body, schema):
    errors = sorted(Draft202012Validator(schema).iter_errors(body), key=str)
    assert not errors, [f"{list(error.absolute_path)}: {error.message}" for error in errors]


def test_the_openapi_document_validates_without_warnings(tmp_path, db):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").stat().st_size > 0


def test_the_openapi_document_holds_whoami_following_and_the_recursive_tree(tmp_path, db):
    target = tmp_path / "schema.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(target))
    document = target.read_text()
    paths = json.loads(document)["paths"]
    assert "get" in paths["/api/v1/whoami"]
    assert "after" in {parameter["name"] for parameter in paths["/api/v1/threads/{ref}"]["get"]["parameters"]}
    # The tree's `$defs` (a JSON Schema document's own) became a component the document can reach.
    assert "$defs" not in document and '"#/components/schemas/MessageNode"' in document
    assert type_arrays(json.loads(document)) == []  # a nullable value is anyOf its type and null


@pytest.fixture
def answers(thread_in, as_alice, as_bob, as_mod, as_human):
    """One real answer of every core operation, from a small conversation."""
    thread = thread_in("open")
    root = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["id"]
    posted = as_bob.say("answer", "8000", thread=thread, provenance={"model": "m", "client": "c"},
                        **{"from": {"extension": "helper"}})
    reply = accepted(as_mod.say("note", "noted", thread=thread, parent=posted.json()["message"]["id"]))
    accepted(as_human.say("note", "human here", thread=thread, parent=reply["message"]["id"]))
    accepted(as_alice.say("decide", "8000", thread=thread))
    other = thread_in("closed")
    return {
        "get_manifest": as_bob.get("/api/v1/manifest"),
        "post": posted,
        "read_message": as_bob.get(f"/api/v1/messages/{root}"),
        "read_thread": as_bob.get(f"/api/v1/threads/{thread}"),
        "list_threads": as_bob.get("/api/v1/threads"),
        "list_events": as_bob.get("/api/v1/events"),
        "inbox": as_mod.get("/api/v1/inbox", awaiting="confirmation"),
        "whoami": as_mod.get("/api/v1/whoami"),
        "confirm": as_mod.post(f"/api/v1/threads/{thread}/confirm"),
        "dismiss": as_mod.post(f"/api/v1/threads/{other}/dismiss", {"reason": "Not settled yet."}),
        "redact": as_mod.post(f"/api/v1/messages/{root}/redact", {"reason": "A leaked secret."}),
    }


def test_every_core_operation_is_exercised(answers):
    core = {name for name, operation in OPERATIONS.items() if operation.run.__module__ == "forum.operations"}
    assert core <= answers.keys()


@pytest.mark.parametrize("name", ["get_manifest", "post", "read_message", "read_thread", "list_threads",
                                  "list_events", "inbox", "whoami", "confirm", "dismiss", "redact"])
def test_a_real_answer_matches_the_declared_output_schema(name, answers):
    response = answers[name]
    assert response.status_code in (200, 201), response.content
    body = response.json()
    conforms(body, OPERATIONS[name].output_schema)
    if name in ("list_threads", "list_events", "inbox"):
        assert body["items"], "an empty list proves little"


def test_every_node_of_a_thread_tree_matches_the_message_node_schema(answers):
    pending = list(answers["read_thread"].json()["messages"])
    seen = 0
    while pending:
        node = pending.pop()
        conforms(node, with_message_nodes(message_node_schema()))
        pending.extend(node["replies"])
        seen += 1
    assert seen == 5


def test_a_refusal_matches_the_error_schema(as_bob, db):
    conforms(as_bob.say("note", "", thread="th_1").json(), ERROR_SCHEMA)
    conforms(as_bob.get("/api/v1/threads/th_999").json(), ERROR_SCHEMA)


def refusal_classes(cls=ParleyError):
    return [cls] + [sub for direct in cls.__subclasses__() for sub in refusal_classes(direct)]


def test_every_reason_the_server_can_send_is_in_the_manifest(client, db):
    """§14.1: a reason reaches the wire only as a ParleyError (REST, MCP, the 404/405/500 answers), so every
    one of them, from every app, is listed with its status."""
    listed = {(entry["reason"], entry["status"]) for entry in client.get("/api/v1/manifest").json()["reasons"]}
    assert {(cls.reason, cls.status) for cls in refusal_classes()} <= listed


def test_no_module_writes_a_refusal_body_by_hand():
    """What keeps the test above honest: a body built by hand would bypass the classes the manifest reads."""
    by_hand = re.compile(r"""["']reason["']\s*:\s*["']""")
    offenders = [str(path.relative_to(PROJECT)) for package in SERVER_PACKAGES
                 for path in (PROJECT / package).rglob("*.py") if by_hand.search(path.read_text())]
    assert offenders == []
