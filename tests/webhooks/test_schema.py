"""The webhook operations in the OpenAPI document, and their real answers against their declared schemas."""
import json

from django.core.management import call_command
from jsonschema import Draft202012Validator

from webhooks.operations import CREATE_WEBHOOK, DELETE_WEBHOOK, LIST_WEBHOOKS, WEBHOOK_OPERATIONS


def conforms(body, schema):
    errors = sorted(Draft202012Validator(schema).iter_errors(body), key=str)
    assert not errors, [f"{list(error.absolute_path)}: {error.message}" for error in errors]


def test_the_openapi_document_describes_the_webhook_routes(tmp_path, db):
    target = tmp_path / "schema.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(target))
    paths = json.loads(target.read_text())["paths"]
    assert set(paths["/api/v1/webhooks"]) == {"get", "post"}
    assert set(paths["/api/v1/webhooks/{ref}"]) == {"delete"}
    assert paths["/api/v1/webhooks"]["post"]["operationId"] == "create_webhook"


def test_real_answers_match_the_declared_output_schemas(as_alice, allow_loopback):
    created = as_alice.post("/api/v1/webhooks", {"url": "http://127.0.0.1:9/hook", "topics": ["inbox"]})
    conforms(created.json(), CREATE_WEBHOOK.output_schema)
    conforms(as_alice.get("/api/v1/webhooks").json(), LIST_WEBHOOKS.output_schema)
    deleted = as_alice.client.delete(f"/api/v1/webhooks/{created.json()['id']}")
    conforms(deleted.json(), DELETE_WEBHOOK.output_schema)


def test_webhooks_are_no_mcp_tools_and_not_among_the_manifests_operations(as_alice):
    names = {operation["name"] for operation in as_alice.get("/api/v1/manifest").json()["operations"]}
    assert not names & set(WEBHOOK_OPERATIONS)
