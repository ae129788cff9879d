"""The ASGI application around Django (parley_site.asgi): it answers the lifespan protocol, bounds request
bodies while they arrive, and builds the OpenAPI document once per process."""
import json

import pytest
from asgiref.sync import async_to_sync
from drf_spectacular.generators import SchemaGenerator

from parley_site import lifespan
from parley_site.asgi import application
from parley_site.bodylimit import Refusal, bounded_bodies
from parley_site.schema import document, rendered_document

LIMIT = 16384


def exchange(app, scope, messages):
    """Runs `app` on one connection: feeds it `messages`, returns what it sent and how many it read."""
    sent, pending, read = [], list(messages), []

    async def receive():
        read.append(True)
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)
    async_to_sync(app)(scope, receive, send)
    return sent, len(read)


def http(path, headers=(), method="POST"):
    return {"type": "http", "method": method, "path": path, "headers": list(headers), "query_string": b""}


def body_of(sent):
    return json.loads(b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body"))


class Echo:
    """An inner application that answers with the body it was given."""

    async def __call__(self, scope, receive, send):
        message = await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": message["body"]})


def guarded(inner=None):
    return bounded_bodies(inner or Echo(), lambda: LIMIT, lambda scope: Refusal(413, {"for": scope["path"]}))


def test_a_declared_body_over_the_limit_is_refused_413_unread():
    sent, read = exchange(guarded(), http("/api/v1/messages", [(b"content-length", b"20000")]), [])
    assert (sent[0]["status"], body_of(sent), read) == (413, {"for": "/api/v1/messages"}, 0)


def test_an_undeclared_body_is_refused_413_once_it_passes_the_limit_and_not_read_further():
    chunks = [{"type": "http.request", "body": b"x" * 10000, "more_body": True} for _ in range(5)]
    sent, read = exchange(guarded(), http("/mcp"), chunks)
    assert (sent[0]["status"], body_of(sent), read) == (413, {"for": "/mcp"}, 2)


def test_a_body_within_the_limit_reaches_the_application_whole():
    chunks = [{"type": "http.request", "body": b"[1,", "more_body": True},
              {"type": "http.request", "body": b"2]", "more_body": False}]
    sent, _ = exchange(guarded(), http("/api/v1/messages"), chunks)
    assert (sent[0]["status"], body_of(sent)) == (200, [1, 2])


@pytest.mark.parametrize("path, shape", [
    ("/api/v1/messages", lambda body: body["error"]["detail"]["limit"] == "request_max_bytes"),
    ("/mcp", lambda body: body["error"]["data"]["error"]["reason"] == "limit_exceeded"),
])
def test_the_413_speaks_the_shape_of_the_door_it_was_sent_to(path, shape):
    sent, _ = exchange(application, http(path, [(b"content-length", b"1000000"), BEARER]), [])
    assert sent[0]["status"] == 413
    assert shape(body_of(sent))


BEARER = (b"authorization", b"Bearer pt_not-checked-before-the-size")
OVER = [{"type": "http.request", "body": b"x" * 10000, "more_body": True} for _ in range(5)]


@pytest.mark.parametrize("declared, read_before", [([(b"content-length", b"1000000")], 0), ([], 2)],
                         ids=["declared", "undeclared"])
def test_a_body_over_the_limit_without_any_credential_is_token_invalid_first(declared, read_before):
    """§13: token_invalid before the 413. Declared, the body is not read; undeclared, only up to the limit."""
    sent, read = exchange(application, http("/api/v1/messages", declared), OVER)
    assert (sent[0]["status"], body_of(sent)["error"]["reason"], read) == (401, "token_invalid", read_before)
    assert (b"www-authenticate", b"Bearer") in [(name, value[:6]) for name, value in sent[0]["headers"]]


@pytest.mark.parametrize("credential", [BEARER, (b"cookie", b"sessionid=unchecked")], ids=["bearer", "session"])
def test_a_credential_present_but_unknown_meets_the_size_limit_first(credential):
    sent, _ = exchange(application, http("/api/v1/messages", [(b"content-length", b"1000000"), credential]), [])
    assert (sent[0]["status"], body_of(sent)["error"]["reason"]) == (413, "limit_exceeded")


def test_the_lifespan_runs_the_registered_shut_down_steps_last_first(monkeypatch):
    ran = []
    monkeypatch.setattr(lifespan, "_at_shutdown", [lambda: ran.append("first"), lambda: ran.append("second")])
    sent, _ = exchange(application, {"type": "lifespan"},
                       [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    assert [message["type"] for message in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert ran == ["second", "first"]


def test_the_openapi_document_is_built_once_per_process(client, db, monkeypatch):
    document.cache_clear()
    rendered_document.cache_clear()
    builds, build = [], SchemaGenerator.get_schema
    monkeypatch.setattr(SchemaGenerator, "get_schema", lambda self, *a, **k: builds.append(1) or build(self, *a, **k))
    first = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    again = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    yaml = client.get("/api/schema/")
    assert (first.status_code, again.status_code, yaml.status_code) == (200, 200, 200)
    assert first.content == again.content and json.loads(first.content)["openapi"].startswith("3.1")
    assert yaml.content.startswith(b"openapi: 3.1")
    assert len(builds) == 1
