"""The event stream in the OpenAPI document (§16). drf-spectacular sees only DRF views, so a hook adds it
(forum.api.schema.add_event_stream); tests/production/test_schemathesis.py feeds it hostile input."""
import pytest

from feed.views import stream_shape

REFUSALS = {"400", "401", "403", "404", "409", "503"}


@pytest.fixture
def stream_operation(client):
    return client.get("/api/schema/", {"format": "json"}).json()["paths"]["/api/v1/events/stream"]["get"]


def test_the_openapi_document_lists_the_streams_query_from_the_shape_that_validates_it(stream_operation):
    documented = {(parameter["in"], parameter["name"]) for parameter in stream_operation["parameters"]}
    query = {("query", name) for name in stream_shape().json_schema()["properties"]}
    assert documented == query | {("header", "Last-Event-ID")}


def test_the_openapi_document_promises_an_event_stream_or_a_json_refusal(stream_operation):
    responses = stream_operation["responses"]
    assert set(responses) == {"200"} | REFUSALS
    assert list(responses["200"]["content"]) == ["text/event-stream"]
    assert {code: list(responses[code]["content"]) for code in REFUSALS} == {
        code: ["application/json"] for code in REFUSALS}


def test_the_openapi_document_asks_the_stream_for_a_token_or_a_staff_session(stream_operation):
    assert stream_operation["security"] == [{"bearerToken": []}, {"staffSession": []}]
