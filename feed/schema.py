"""The one door drf-spectacular cannot see, the event stream: added to the OpenAPI document by a
post-processing hook (SPECTACULAR_SETTINGS)."""
from feed.views import stream_shape
from forum.wire import ERROR_SCHEMA

STREAM_PATH = "/api/v1/events/stream"
STREAM_REFUSALS = {
    400: "invalid_body: a malformed query or Last-Event-ID",
    401: "token_invalid: no, unknown or revoked token",
    403: "token_right_missing: read (lock for the moderation queue)",
    404: "not_found: an unknown thread",
    409: "limit_exceeded: the line already has streams_per_token_max streams open",
    503: "unavailable: the database is away, or this server cannot hold a stream (WSGI; detail.fix)",
}
STREAM_DESCRIPTION = (
    "Server-Sent Events (§16, profile feed): one Parley item per SSE event, `id:` the list's cursor just past "
    "it, `data:` the item's JSON as list_events (an event) or, with inbox=1, inbox (a thread) renders it. "
    "A comment heartbeat after each quiet heartbeat_seconds. Without a cursor the stream starts with what "
    "happens from then on. Every refusal comes before the stream opens; a caller who may no longer read "
    "(a revoked token, a lost right) gets a last `event: error` frame with the refusal, and the stream ends.")


def event_stream_operation():
    """The stream's OpenAPI operation, its query from the shape that validates it."""
    query = [{"in": "query", "name": name, "schema": schema, "description": schema.get("description", "")}
             for name, schema in stream_shape().json_schema()["properties"].items()]
    resume = {"in": "header", "name": "Last-Event-ID", "schema": {"type": "string", "maxLength": 100},
              "description": "Sent by EventSource on reconnect: resume after that item (wins over since/cursor)."}
    refusals = {str(status): {"description": f"a refusal (§13), {why}",
                              "content": {"application/json": {"schema": ERROR_SCHEMA}}}
                for status, why in STREAM_REFUSALS.items()}
    opened = {"description": "The stream: `retry:`, then `id:`/`data:` events and `: heartbeat` comments.",
              "content": {"text/event-stream": {"schema": {"type": "string"}}}}
    return {"operationId": "event_stream", "summary": "event_stream", "description": STREAM_DESCRIPTION,
            "tags": ["api"], "parameters": [*query, resume],
            "security": [{"bearerToken": []}, {"staffSession": []}], "responses": {"200": opened, **refusals}}


def add_event_stream(result, generator, request, public):
    """drf-spectacular describes DRF views only, and the event stream is a plain Django view answering a
    stream: its path is added to the document here."""
    result["paths"] = dict(sorted({**result["paths"], STREAM_PATH: {"get": event_stream_operation()}}.items()))
    return result
