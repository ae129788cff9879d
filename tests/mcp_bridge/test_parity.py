"""REST and MCP are two doors to one house (Parley v1 §2): for every operation the same data,
and for a refusal of every §13 reason the same reason, message, detail and status."""
import json
from types import SimpleNamespace

import pytest
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

from forum.models import Message
from forum.dispatch import OPERATIONS
from parley_site.errors import REFUSALS as REFUSAL_CLASSES
from tests.conftest import Agent
from tests.mcp_bridge.conftest import McpAgent, refusal
from tests.reputation.conftest import run_refresh_jobs

PROOF = [{"kind": "url", "ref": "https://example.org/evidence"}]


@pytest.fixture
def world(as_alice, as_bob, as_mod):
    """A decided-proposal thread with a claim in it, built through the REST door."""
    thread = as_alice.ask("Does the bridge agree with REST?")
    answer = as_bob.say("answer", "It should, by construction.", thread=thread).json()["message"]["id"]
    claim = as_bob.say("assert", "Both doors call one function.", thread=thread).json()["claim"]["id"]
    as_alice.say("decide", "Agreed.", thread=thread)
    run_refresh_jobs()  # the reputation's records served as the worker leaves them (§21)
    return {"thread": thread, "answer": answer, "claim": claim, "bob": as_bob.identity}


READS = {
    # operation: (persona, REST path and query, MCP arguments)
    "get_manifest": ("alice", "/api/v1/manifest", {}, {}),
    "read_message": ("bob", "/api/v1/messages/{answer}", {}, {"message": "{answer}"}),
    "read_thread": ("bob", "/api/v1/threads/{thread}", {}, {"thread": "{thread}"}),
    "list_threads": ("bob", "/api/v1/threads", {"state": "decided", "limit": "5"}, {"state": "decided", "limit": 5}),
    "list_events": ("bob", "/api/v1/events", {"thread": "{thread}"}, {"thread": "{thread}"}),
    "inbox": ("mod", "/api/v1/inbox", {"awaiting": "confirmation"}, {"awaiting": "confirmation"}),
    "read_claim": ("carol", "/api/v1/claims/{claim}", {}, {"claim": "{claim}"}),
    "list_claims": ("carol", "/api/v1/claims", {"thread": "{thread}"}, {"thread": "{thread}"}),
    "whoami": ("mod", "/api/v1/whoami", {}, {}),
    "list_rooms": ("bob", "/api/v1/rooms", {}, {}),  # §20
    "read_room": ("bob", "/api/v1/rooms/general", {}, {"room": "general"}),
    "read_reputation": ("mod", "/api/v1/reputation/{bob}", {}, {"identity": "{bob}"}),  # §21
    "list_outcomes": ("bob", "/api/v1/reputation/me/outcomes", {}, {}),
}
# Further forms of a read, asked through both doors as READS are: (operation, persona, path, query, arguments).
READ_FORMS = {
    "read_thread_after": ("read_thread", "bob", "/api/v1/threads/{thread}", {"after": "{answer}"},
                          {"thread": "{thread}", "after": "{answer}"}),
}
WRITES = {"post", "confirm", "dismiss", "redact"}
# The rooms profile's writes (§20): tests/rooms, and their refusals below.
ROOM_WRITES = {"join_room", "leave_room", "move_thread"}
# The evidence profile's: an upload over REST is raw bytes, and its tool's read adds text; tests/evidence.
ARTIFACT_OPERATIONS = {"put_artifact", "read_artifact", "redact_artifact"}
# Signed when asked, so two answers differ in signed_at and signature; tests/evidence/test_export.py.
SIGNED_OPERATIONS = {"export_attestation"}


def fill(template, world):
    return {key: value.format(**world) if isinstance(value, str) else value for key, value in template.items()}


def test_every_operation_has_a_parity_case():
    assert set(OPERATIONS) == set(READS) | WRITES | ROOM_WRITES | ARTIFACT_OPERATIONS | SIGNED_OPERATIONS


@pytest.mark.parametrize("operation", sorted(READS))
def test_a_read_answers_the_same_data_through_both_doors(operation, world, request):
    persona, path, query, arguments = READS[operation]
    if operation not in OPERATIONS:
        pytest.skip(f"{operation} belongs to a profile that is not installed")
    token = request.getfixturevalue(persona)
    rest = Agent(token).get(path.format(**world), **fill(query, world))
    assert rest.status_code == 200, rest.json()
    result = McpAgent(token).call(operation, fill(arguments, world))
    assert result["isError"] is False
    assert result["structuredContent"] == rest.json()


@pytest.mark.parametrize("form", sorted(READ_FORMS))
def test_a_form_of_a_read_answers_the_same_data_through_both_doors(form, world, request):
    operation, persona, path, query, arguments = READ_FORMS[form]
    token = request.getfixturevalue(persona)
    rest = Agent(token).get(path.format(**world), **fill(query, world))
    assert rest.status_code == 200, rest.json()
    assert rest.json()["messages"], "an empty answer proves little"
    assert McpAgent(token).call(operation, fill(arguments, world))["structuredContent"] == rest.json()


def test_a_key_sent_as_header_argument_or_meta_replays_the_same_answer(alice):
    """§4.1: one key, whichever door and form carries it: REST's header, MCP's argument or `_meta`."""
    envelope = {"kind": "ask", "body": "Asked once, retried thrice?"}
    first = rest_call(alice, "POST", "/api/v1/messages", envelope, {"Idempotency-Key": "one-key"})
    assert first.status_code == 201
    by_argument = McpAgent(alice).call("post", {**envelope, "idempotency_key": "one-key"})
    by_meta = McpAgent(alice).call("post", envelope, meta={"io.parley/idempotency-key": "one-key"})
    assert by_argument["structuredContent"] == by_meta["structuredContent"] == first.json()
    assert Message.objects.count() == 1


def test_a_post_over_mcp_answers_what_rest_then_reads(world, carol):
    result = McpAgent(carol).call("post", {"kind": "note", "body": "Seen from MCP.", "thread": world["thread"]})
    written = result["structuredContent"]
    reader = Agent(carol)
    assert written["message"] == reader.get(f"/api/v1/messages/{written['message']['id']}").json()["message"]
    assert written["thread"] == reader.get(f"/api/v1/threads/{world['thread']}").json()["thread"]


@pytest.mark.parametrize("operation", ["confirm", "dismiss"])
def test_a_moderation_over_mcp_answers_what_rest_then_reads(operation, world, mod):
    written = McpAgent(mod).call(operation, {"thread": world["thread"]})["structuredContent"]
    assert written["message"] is None
    assert written["thread"] == Agent(mod).get(f"/api/v1/threads/{world['thread']}").json()["thread"]
    # dismiss returns to the last confirmed state: bob's answer was a proposal too, so `open` (§8).
    assert written["thread"]["state"] == ("decided" if operation == "confirm" else "open")


def test_a_dismiss_reason_over_mcp_is_the_note_rest_reads(world, mod):
    reason = "Not decided yet: the operator has not answered."
    assert McpAgent(mod).call("dismiss", {"thread": world["thread"], "reason": reason})["isError"] is False
    events = Agent(mod).get("/api/v1/events", thread=world["thread"]).json()["items"]
    assert (events[-1]["label"], events[-1]["note"]) == ("dismiss", reason)


def test_a_redaction_over_mcp_answers_what_rest_then_reads(world, mod):
    written = McpAgent(mod).call("redact", {"message": world["answer"], "reason": "A leak."})["structuredContent"]
    reader = Agent(mod)
    assert written["message"] == reader.get(f"/api/v1/messages/{world['answer']}").json()["message"]
    assert written["thread"] == reader.get(f"/api/v1/threads/{world['thread']}").json()["thread"]
    assert (written["message"]["body"], written["message"]["redacted"]["by"]) == ("", mod.identity)


def test_redact_is_the_one_tool_marked_destructive():
    tools = McpAgent(None).request("tools/list").json()["result"]["tools"]
    assert {tool["name"] for tool in tools if tool["annotations"].get("destructiveHint")} == {"redact"}


@pytest.mark.parametrize("persona,arguments,reason", [
    ("alice", {}, "token_right_missing"),
    ("mod", {"reason": ""}, "invalid_body"),
    ("mod", {"message": "msg_999999"}, "not_found"),
    ("mod", {"again": True}, "invalid_transition"),
])
def test_a_refused_redaction_is_the_same_through_both_doors(persona, arguments, reason, world, mod, request):
    token, arguments = request.getfixturevalue(persona), dict(arguments)
    if arguments.pop("again", False):
        assert Agent(mod).post(f"/api/v1/messages/{world['answer']}/redact").status_code == 200
    message = arguments.pop("message", world["answer"])
    stored = list(Message.objects.order_by("id").values())
    over_rest = Agent(token).post(f"/api/v1/messages/{message}/redact", arguments)
    over_mcp = refusal(McpAgent(token).call("redact", {"message": message, **arguments}))
    assert over_rest.json()["error"]["reason"] == reason
    assert over_mcp == {**over_rest.json()["error"], "status": over_rest.status_code}
    assert list(Message.objects.order_by("id").values()) == stored


# --- refusals: one case per §13 reason, each set up through REST, then asked through both doors ------

def rest_call(token, method, path, body=None, headers=None):
    agent = Agent(token)
    if method == "GET":
        return agent.get(path, **(body or {}))
    return agent.post(path, body, **{f"HTTP_{name.upper().replace('-', '_')}": value
                                     for name, value in (headers or {}).items()})


def locked_thread(as_alice, as_bob, as_mod):
    thread = as_alice.ask("Closed for good?")
    as_bob.say("answer", "Yes.", thread=thread)
    as_mod.say("decide", "Yes.", thread=thread)
    as_mod.say("close", "Done.", thread=thread)
    return thread


def answered_thread(as_alice, as_bob):
    thread = as_alice.ask("Open question?")
    answer = as_bob.say("answer", "An answer.", thread=thread).json()["message"]["id"]
    return thread, answer


def case_invalid_body(p):
    return p.alice, "POST", "/api/v1/messages", {"kind": "shout", "body": "Loud."}, "post"


def case_token_invalid(p):
    return p.impostor, "POST", "/api/v1/messages", {"kind": "ask", "body": "Who am I?"}, "post"


def case_token_right_missing(p):
    return p.mallory, "POST", "/api/v1/messages", {"kind": "ask", "body": "May I?"}, "post"


def case_thread_authority_missing(p):
    thread, _ = answered_thread(p.as_alice, p.as_bob)
    return p.carol, "POST", "/api/v1/messages", {"kind": "decide", "body": "Mine now.", "thread": thread}, "post"


def case_not_found(p):
    return p.bob, "GET", "/api/v1/threads/th_999999", None, "read_thread", {"thread": "th_999999"}


def case_self_reply(p):
    thread = p.as_alice.ask("Talking to myself?")
    return p.alice, "POST", "/api/v1/messages", {"kind": "answer", "body": "Yes.", "thread": thread}, "post"


def case_thread_locked(p):
    thread = locked_thread(p.as_alice, p.as_bob, p.as_mod)
    return p.bob, "POST", "/api/v1/messages", {"kind": "note", "body": "Late.", "thread": thread}, "post"


def case_invalid_transition(p):
    thread = p.as_alice.ask("Close it at once?")
    return p.alice, "POST", "/api/v1/messages", {"kind": "close", "body": "Now.", "thread": thread}, "post"


def case_nothing_to_confirm(p):
    thread = p.as_alice.ask("Anything pending?")
    return p.mod, "POST", f"/api/v1/threads/{thread}/confirm", None, "confirm", {"thread": thread}


def case_self_attest(p):
    thread = p.as_alice.ask("Can I vouch for myself?")
    claim = p.as_alice.say("assert", "I can.", thread=thread).json()["claim"]["id"]
    envelope = {"kind": "attest", "body": "I vouch.", "thread": thread, "claim": claim, "proof": PROOF}
    return p.alice, "POST", "/api/v1/messages", envelope, "post"


def case_idempotency_conflict(p):
    key = {"Idempotency-Key": "once-only"}
    first = rest_call(p.alice, "POST", "/api/v1/messages", {"kind": "ask", "body": "First."}, key)
    assert first.status_code == 201
    return p.alice, "POST", "/api/v1/messages", {"kind": "ask", "body": "Second."}, "post", None, key


def case_limit_exceeded(p):
    p.settings.PARLEY_LIMITS = {**p.settings.PARLEY_LIMITS, "max_depth": 1}
    thread, answer = answered_thread(p.as_alice, p.as_bob)
    envelope = {"kind": "ask", "body": "Deeper?", "thread": thread, "parent": answer}
    return p.alice, "POST", "/api/v1/messages", envelope, "post"


def case_rate_limited(p):
    p.settings.PARLEY_LIMITS = {**p.settings.PARLEY_LIMITS, "writes_per_minute": 1}
    p.as_alice.ask("One write a minute?")
    return p.alice, "POST", "/api/v1/messages", {"kind": "ask", "body": "And another?"}, "post"


def case_room_restricted(p):
    from forum.actors import Actor
    from rooms.services import room_create

    room_create(Actor.for_operator("tests"), {"slug": "closed", "name": "Closed", "opening": "moderators"})
    return p.alice, "POST", "/api/v1/messages", {"kind": "ask", "body": "In here?", "room": "closed"}, "post"


def case_room_archived(p):
    from forum.actors import Actor
    from rooms.services import room_archive, room_create

    operator = Actor.for_operator("tests")
    room_archive(operator, f"rm_{room_create(operator, {'slug': 'attic', 'name': 'Attic'}).pk}")
    return p.alice, "POST", "/api/v1/messages", {"kind": "ask", "body": "In the attic?", "room": "attic"}, "post"


def case_loop_guard(p):
    p.settings.PARLEY_LIMITS = {**p.settings.PARLEY_LIMITS, "loop_exchange_max": 2}
    thread, answer = answered_thread(p.as_alice, p.as_bob)
    p.as_alice.say("note", "Ping.", thread=thread, parent=answer)
    p.as_bob.say("note", "Pong.", thread=thread)
    envelope = {"kind": "note", "body": "Ping again.", "thread": thread, "parent": answer}
    return p.alice, "POST", "/api/v1/messages", envelope, "post"


REFUSALS = {name.removeprefix("case_"): case for name, case in globals().items() if name.startswith("case_")}


class Personas:
    impostor = SimpleNamespace(secret="pt_not-a-real-token")

    def __init__(self, request):
        for name in ("alice", "bob", "carol", "mod", "mallory", "as_alice", "as_bob", "as_mod", "settings"):
            setattr(self, name, request.getfixturevalue(name))


def test_every_reason_of_section_13_has_a_parity_case():
    # the 413 and the database outage are asked differently, below; a wrong HTTP method and an unexpected
    # fault are the HTTP door's answers, not an operation's refusal (MCP has JSON-RPC's own for both)
    assert {cls.reason for cls in REFUSAL_CLASSES} == set(REFUSALS) | {"unavailable", "method_not_allowed",
                                                                       "internal"}


@pytest.mark.parametrize("reason", sorted(REFUSALS))
def test_a_refusal_is_the_same_through_both_doors_and_stores_nothing(reason, request, db):
    if reason == "self_attest" and "read_claim" not in OPERATIONS:
        pytest.skip("the dialectic profile is not installed")
    token, method, path, body, tool, *rest = REFUSALS[reason](Personas(request))
    arguments, headers = (rest + [None, None])[:2]
    stored = Message.objects.count()
    over_rest = rest_call(token, method, path, body, headers)
    meta = {"io.parley/idempotency-key": headers["Idempotency-Key"]} if headers else None
    over_mcp = refusal(McpAgent(token).call(tool, arguments if arguments is not None else body, meta=meta))
    rest_error = over_rest.json()["error"]
    assert rest_error["reason"] == reason
    if reason == "rate_limited":  # seconds left in the window: the two calls may straddle a second
        assert abs(over_mcp["detail"].pop("retry_after") - rest_error["detail"].pop("retry_after")) <= 1
    assert over_mcp == {**rest_error, "status": over_rest.status_code}
    assert Message.objects.count() == stored


def test_a_body_over_the_size_limit_is_refused_alike(alice):
    envelope = {"kind": "ask", "body": "Big?", "provenance": {"model": "m" * 17000}}
    over_rest = Agent(alice).post(body=envelope)
    over_mcp = McpAgent(alice).request("tools/call", {"name": "post", "arguments": envelope})
    assert (over_rest.status_code, over_mcp.status_code) == (413, 413)
    assert over_mcp.json()["error"]["data"]["error"] == {**over_rest.json()["error"], "status": 413}
    assert Message.objects.count() == 0


def test_a_database_outage_is_unavailable_through_both_doors(alice):
    def outage(execute, sql, params, many, context):
        raise OperationalError("connection refused")

    with connection.execute_wrapper(outage):
        over_rest = Agent(alice).get("/api/v1/threads")
        over_mcp = refusal(McpAgent(alice).call("list_threads"))
    assert over_rest.status_code == 503
    assert over_mcp == {**over_rest.json()["error"], "status": 503}


def test_the_bridge_costs_exactly_the_queries_rest_costs(world, carol):
    Agent(carol).get("/api/v1/threads")  # the token's first use stamps last_used_at; keep it out of the count
    note = {"kind": "note", "body": "Counting queries.", "thread": world["thread"]}
    doors = [
        (lambda: Agent(carol).get(f"/api/v1/threads/{world['thread']}"), "read_thread", {"thread": world["thread"]}),
        (lambda: Agent(carol).post(body=note), "post", note),
    ]
    for over_rest, tool, arguments in doors:
        with CaptureQueriesContext(connection) as rest_queries:
            over_rest()
        with CaptureQueriesContext(connection) as mcp_queries:
            McpAgent(carol).call(tool, arguments)
        assert len(mcp_queries) == len(rest_queries), tool


# --- resources (§2): each one's content is what its REST read answers; a refused read, its refusal -------

RESOURCES = {
    # uri (formatted with the world): (persona, the REST path of the same read)
    "parley://manifest": ("alice", "/api/v1/manifest"),
    "parley://threads/{thread}": ("bob", "/api/v1/threads/{thread}"),
    "parley://rooms": ("bob", "/api/v1/rooms"),  # §20 (parley://rooms/{id} adds its threads: tests/mcp_bridge/test_resources.py)
}


def resource_read(token, uri):
    return McpAgent(token).request("resources/read", {"uri": uri}).json()


def test_every_listed_resource_has_a_parity_case(mcp):
    listed = {resource["uri"] for resource in mcp(None).request("resources/list").json()["result"]["resources"]}
    # parley://artifacts/{id} answers read_artifact, which adds a text to REST's meta: tests/evidence/test_mcp.py.
    templates = {template["uriTemplate"].replace("{id}", "{thread}") for template in
                 mcp(None).request("resources/templates/list").json()["result"]["resourceTemplates"]
                 if template["uriTemplate"] not in ("parley://artifacts/{id}", "parley://rooms/{id}")}
    assert listed | templates == set(RESOURCES) | {"parley://inbox"}


@pytest.mark.parametrize("uri", sorted(RESOURCES))
def test_a_resource_holds_what_rest_reads(uri, world, request):
    persona, path = RESOURCES[uri]
    token = request.getfixturevalue(persona)
    rest = Agent(token).get(path.format(**world))
    (item,) = resource_read(token, uri.format(**world))["result"]["contents"]
    assert json.loads(item["text"]) == rest.json()


def test_the_inbox_resource_holds_the_threads_rest_lists_in_the_inbox(world, as_alice, carol):
    as_alice.ask("Is the inbox resource the inbox?")  # one page: the newest page is the first one
    rest = Agent(carol).get("/api/v1/inbox").json()["items"]
    (item,) = resource_read(carol, "parley://inbox")["result"]["contents"]
    assert json.loads(item["text"])["items"] == rest != []


@pytest.mark.parametrize(("persona", "uri", "path"), [
    ("impostor", "parley://inbox", "/api/v1/inbox"),
    ("mallory_without_read", "parley://inbox", "/api/v1/inbox"),
    ("bob", "parley://threads/th_999999", "/api/v1/threads/th_999999"),
])
def test_a_refused_read_carries_the_refusal_rest_answers(persona, uri, path, request, make_token):
    if persona == "impostor":
        token = SimpleNamespace(secret="pt_not-a-token")
    elif persona == "mallory_without_read":
        token = make_token("writes-blind", ("write",))
    else:
        token = request.getfixturevalue(persona)
    rest = Agent(token).get(path)
    error = resource_read(token, uri)["error"]
    assert error["code"] == -32602
    assert error["data"] == rest.json()["error"]
