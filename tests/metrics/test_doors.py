"""Every door counts every call once (parley_site.doors): one call of each operation through each door it is
served on adds exactly one to that operation's count at that door, whatever the outcome. The calls are
taken from where the doors take their operations (the REST routes, the MCP tools and resources, the lists
the stream follows), so an operation or a route added later is counted here without a line more."""
import pytest
from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from forum.api.views import OperationView
from forum.dispatch import OPERATIONS
from mcp_bridge import resources
from parley_site.metrics import DOORS
from tests.console.console import apply_mark, number, run_action
from tests.evidence.conftest import upload
from tests.mcp_bridge.conftest import McpAgent

pytestmark = pytest.mark.django_db


def rest_routes(patterns=None, prefix="/"):
    """(method, path, operation name) of every route an OperationView serves, a path id filled in."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern).lstrip("^").rstrip("$").replace("<str:ref>", "1")
        if isinstance(pattern, URLResolver):
            yield from rest_routes(pattern.url_patterns, route)
            continue
        view = getattr(pattern.callback, "view_class", None)
        if not (isinstance(pattern, URLPattern) and view and issubclass(view, OperationView)):
            continue
        served = getattr(view, "operations", None) or {
            method.upper(): pattern.callback.view_initkwargs.get("operation", view.operation)
            for method in ("get", "post") if hasattr(view, method)}
        for method, operation in served.items():
            yield method, route, operation.name


def streamed_operations():
    """The lists the event stream follows: the operations the feed lets wait (§16)."""
    return [name for name, operation in OPERATIONS.items() if "wait" in operation.input().json_schema()["properties"]]


def resource_uris():
    ids = {"parley://threads/{id}": "th_1", "parley://artifacts/{id}": "sha256:" + "0" * 64,
           "parley://rooms/{id}": "rm_1"}
    return [item["uri"] for item in resources.RESOURCES] + [
        item["uriTemplate"].replace("{id}", ids[item["uriTemplate"]]) for item in resources.TEMPLATES]


def counted_at(scrape, operation, door):
    """How many calls of `operation` at `door` /metrics has counted, whatever their outcome."""
    return sum(value for (name, labels), value in scrape().items() if name == "parley_requests_total"
               and dict(labels)["operation"] == operation and dict(labels)["door"] == door)


def counts_once(scrape, operation, door, call):
    before = counted_at(scrape, operation, door)
    call()
    assert counted_at(scrape, operation, door) == before + 1, (operation, door)


@pytest.mark.parametrize(("method", "path", "operation"), list(rest_routes()))
def test_a_call_of_each_rest_route_counts_once_under_its_operation(scrape, method, path, operation):
    counts_once(scrape, operation, "rest", lambda: Client().generic(method, path))


@pytest.mark.parametrize("tool", list(OPERATIONS))
def test_a_call_of_each_mcp_tool_counts_once_under_its_operation(scrape, tool):
    counts_once(scrape, tool, "mcp", lambda: McpAgent(None).call(tool, {}))


@pytest.mark.parametrize("uri", resource_uris())
def test_a_read_of_each_mcp_resource_counts_once_under_the_operation_it_reads_as(scrape, uri):
    operation = resources.operation_of(uri)
    assert operation in OPERATIONS
    counts_once(scrape, operation, "mcp", lambda: McpAgent(None).request("resources/read", {"uri": uri}))


@pytest.mark.parametrize("operation", streamed_operations())
def test_an_event_stream_counts_once_under_the_operation_whose_list_it_follows(scrape, operation):
    query = "?inbox=1" if operation == "inbox" else ""
    counts_once(scrape, operation, "stream", lambda: Client().get(f"/api/v1/events/stream{query}"))


def test_the_stream_follows_the_lists_of_inbox_and_list_events():
    assert sorted(streamed_operations()) == ["inbox", "list_events"]


def test_each_console_action_counts_once_at_door_admin(scrape, console, as_alice, as_bob):
    thread = as_alice.ask("Which cache?")
    message = as_bob.say("answer", "Redis.", thread=thread).json()["message"]["id"].removeprefix("msg_")
    asserted = as_alice.say("assert", "Redis is fast.", thread=thread,
                            proof=[{"kind": "url", "ref": "https://example.org/redis"}]).json()["claim"]["id"]
    artifact = upload(as_alice).json()["artifact"]["id"]
    claim_act = f"/admin/dialectic/claim/{asserted.removeprefix('cl_')}/act/verify/"
    counts_once(scrape, "confirm", "admin", lambda: run_action(console, "confirm", [thread]))
    counts_once(scrape, "dismiss", "admin", lambda: run_action(console, "dismiss", [thread]))
    counts_once(scrape, "post", "admin", lambda: apply_mark(console, "decide", [thread], "Redis it is."))
    redact = reverse("admin:forum_thread_redact", args=[number(thread), int(message)])
    counts_once(scrape, "redact", "admin", lambda: console.post(redact, {"reason": "a leak"}))
    counts_once(scrape, "post", "admin", lambda: console.post(claim_act, {"apply": "1", "body": "Checked."}))
    counts_once(scrape, "redact_artifact", "admin", lambda: console.post(
        f"/admin/evidence/artifact/{quote(artifact)}/redact/", {"reason": "a leaked secret"}))


def test_every_door_of_the_counts_is_exercised_above():
    assert set(DOORS) == {"rest", "mcp", "stream", "admin"}
