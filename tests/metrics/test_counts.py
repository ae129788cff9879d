"""What /metrics counts: each operation by its §12 name, the door it came through and its outcome (ok or
the §13 reason), with a latency histogram per operation; label values from closed sets only."""
import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from forum import selectors
from forum.models import Message, Thread
from forum.dispatch import OPERATIONS
from parley_site.errors import reasons_table
from tests.console.console import number, run_action
from tests.mcp_bridge.conftest import McpAgent, refusal
from tests.metrics.conftest import requests_counted
from rooms.operations import ROOM_ADMINISTRATION
from webhooks.operations import WEBHOOK_OPERATIONS

pytestmark = pytest.mark.django_db


def test_a_rest_call_counts_under_its_operation_door_rest_and_ok(as_alice, counted):
    before = counted("post", "rest", "ok")
    as_alice.ask("Which port?")
    assert counted("post", "rest", "ok") == before + 1


def test_a_refused_write_counts_under_its_reason_and_stores_nothing(as_alice, counted):
    thread = as_alice.ask("Which port?")
    messages = Message.objects.count()
    before = counted("post", "rest", "self_reply")

    response = as_alice.say("answer", "8080, says I", thread=thread)

    assert (response.status_code, response.json()["error"]["reason"]) == (409, "self_reply")
    assert Message.objects.count() == messages
    assert counted("post", "rest", "self_reply") == before + 1


def test_a_refusal_at_the_rest_door_before_the_operation_counts_too(counted):
    before = counted("inbox", "rest", "token_invalid")
    response = Client().get("/api/v1/inbox", headers={"Authorization": "Bearer not-a-token"})
    assert (response.status_code, response.json()["error"]["reason"]) == (401, "token_invalid")
    assert counted("inbox", "rest", "token_invalid") == before + 1


def test_a_malformed_body_counts_as_invalid_body_of_its_operation(as_alice, counted):
    before = counted("post", "rest", "invalid_body")
    response = as_alice.client.post("/api/v1/messages", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert counted("post", "rest", "invalid_body") == before + 1


def test_an_mcp_tool_call_counts_under_door_mcp(alice, counted):
    before = (counted("read_thread", "mcp", "ok"), counted("read_thread", "mcp", "not_found"))
    agent = McpAgent(alice)
    thread = agent.call("post", {"kind": "ask", "body": "Over MCP?"})["structuredContent"]["thread"]["id"]
    agent.call("read_thread", {"thread": thread})
    assert refusal(agent.call("read_thread", {"thread": "th_999999"}))["reason"] == "not_found"
    assert (counted("read_thread", "mcp", "ok"), counted("read_thread", "mcp", "not_found")) == (
        before[0] + 1, before[1] + 1)


def test_an_mcp_call_with_a_bad_token_counts_as_token_invalid(counted):
    before = counted("inbox", "mcp", "token_invalid")
    agent = McpAgent(None)
    assert refusal(agent.call("inbox", {}, HTTP_AUTHORIZATION="Bearer nope"))["reason"] == "token_invalid"
    assert counted("inbox", "mcp", "token_invalid") == before + 1


def test_every_unknown_route_counts_as_the_one_operation_unknown(scrape):
    before = scrape()
    for path in ("/api/v1/nothing-1", "/api/v1/nothing-2/deeper", "/.well-known/other", "/no/such/page"):
        assert Client().get(path).status_code == 404
    after = scrape()
    assert requests_counted(after, "unknown", "rest", "not_found") == requests_counted(
        before, "unknown", "rest", "not_found") + 4
    new_series = {key for key in after if key[0] == "parley_requests_total"} - set(before)
    assert new_series <= {("parley_requests_total", (("door", "rest"), ("operation", "unknown"),
                                                     ("outcome", "not_found")))}
    assert not any("nothing-" in value for _, labels in after for _, value in labels)


def test_the_series_labels_take_values_from_closed_sets_only(as_alice, scrape):
    as_alice.ask("Some traffic")
    as_alice.get("/api/v1/threads/th_nope")
    reasons = {entry["reason"] for entry in reasons_table()}
    for (name, labels) in scrape():
        labels = dict(labels)
        if name.startswith("parley_requests"):
            assert labels["operation"] in set(OPERATIONS) | set(WEBHOOK_OPERATIONS) | set(ROOM_ADMINISTRATION) | {"unknown"}
            assert labels["door"] in {"rest", "mcp", "admin", "stream"}
            assert labels["outcome"] in reasons | {"ok"}


def test_each_operation_has_a_latency_histogram(as_alice, scrape):
    def observed(found):
        return found.get(("parley_request_duration_seconds_count", (("operation", "list_threads"),)), 0)
    before = observed(scrape())
    as_alice.get("/api/v1/threads")
    after = scrape()
    assert observed(after) == before + 1
    assert ("parley_request_duration_seconds_bucket", (("le", "0.005"), ("operation", "list_threads"))) in after


def test_an_unexpected_fault_counts_as_internal(as_alice, counted, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(selectors, "thread_list", explode)  # what list_threads runs
    before = counted("list_threads", "rest", "internal")
    response = as_alice.get("/api/v1/threads")
    assert (response.status_code, response.json()["error"]["reason"]) == (500, "internal")
    assert counted("list_threads", "rest", "internal") == before + 1


def test_a_refused_event_stream_counts_under_door_stream(counted):
    before = counted("list_events", "stream", "token_invalid")
    assert Client().get("/api/v1/events/stream").status_code == 401
    assert counted("list_events", "stream", "token_invalid") == before + 1


@pytest.fixture
def moderator_console(db, django_user_model):
    user = django_user_model.objects.create_user("mia", password="pw-mia-12345", is_staff=True)
    user.user_permissions.add(Permission.objects.get(content_type__app_label="forum", codename="moderate_thread"))
    client = Client()
    client.force_login(user)
    return client


def test_the_consoles_actions_count_under_door_admin(moderator_console, as_alice, as_bob, counted):
    proposed = as_alice.ask("Close me?")
    as_bob.say("answer", "Yes", thread=proposed)
    as_alice.say("close", "Settled.", thread=proposed)
    unproposed = as_alice.ask("Nothing proposed")
    before = (counted("confirm", "admin", "ok"), counted("confirm", "admin", "nothing_to_confirm"))

    run_action(moderator_console, "confirm", [proposed, unproposed])

    assert Thread.objects.get(pk=number(proposed)).state == "closed"
    assert (counted("confirm", "admin", "ok"), counted("confirm", "admin", "nothing_to_confirm")) == (
        before[0] + 1, before[1] + 1)
