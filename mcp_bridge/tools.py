"""The MCP tools: one per operation of `forum.dispatch.OPERATIONS`, read afresh on every listing so a
profile's operations join without a line here. A call runs `forum.dispatch.call`, the path REST takes
too; this module only translates its answer (or its refusal) into an MCP tool result. `call_tool` is the
one place where an MCP tool call runs, over HTTP and stdio, in both eras (mcp_bridge.server calls it)."""
import json

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from forum.dispatch import OPERATIONS, call
from forum.envelope import IDEMPOTENCY_KEY_PATTERN
from forum.wire import strict
from parley_site.doors import Door
from parley_site.errors import REFUSALS, InvalidBody
from parley_site.shapes import Str

IDEMPOTENCY_META = "io.parley/idempotency-key"  # Parley v1 §4.1
# §4.1: a model inside a host sets arguments, not `_meta`, so the write tools take the key as an argument
# too. It is the MCP door's, not the operation's: over REST the key is a header and this an unknown field.
IDEMPOTENCY_ARGUMENT = "idempotency_key"
IDEMPOTENCY_KEY = Str(pattern=IDEMPOTENCY_KEY_PATTERN, description=(
    "Any 1-128 characters of [A-Za-z0-9._:-] you choose for this write: sending the same call again with "
    "the same key (a retry after a time-out) replays the first answer and stores nothing new."))

# §13's refusal as a tool result carries it: structuredContent {"error": {..., "status"}}. It is part of
# every tool's outputSchema because clients may validate it too: the TypeScript SDK's client (the MCP
# Inspector's, for one) checks structuredContent against outputSchema even when isError is true.
REFUSAL_SCHEMA = strict({"error": strict({
    "reason": {"type": "string", "enum": sorted({cls.reason for cls in REFUSALS}),
               "description": "the stable reason (the manifest's reasons)"},
    "message": {"type": "string", "description": "what went wrong and what to do next"},
    "detail": {"type": "object", "additionalProperties": True, "description": (
        "the reason's particulars, e.g. field (invalid_body), right (token_right_missing), object "
        "(not_found), limit (limit_exceeded), retry_after (rate_limited), fix (unavailable)")},
    "status": {"type": "integer", "description": "the HTTP status the REST API answers for it"},
})}, description="A refusal (isError: true).")


def output_schema(operation):
    """The operation's answer or a refusal. The answer's `$defs` move to the root, where its `$ref`s
    point."""
    answer = dict(operation.output_schema)
    definitions = answer.pop("$defs", None)
    schema = {"type": "object", "anyOf": [answer, REFUSAL_SCHEMA]}
    return {**schema, "$defs": definitions} if definitions else schema


def tool_definition(operation):
    annotations = {"readOnlyHint": operation.read_only, "openWorldHint": False}
    if not operation.read_only:
        # Writes add: messages, events and proposals are kept (§11); only redact erases (§17).
        annotations.update(destructiveHint=operation.destructive, idempotentHint=False)
    return {
        "name": operation.name,
        "description": operation.description_text,
        "inputSchema": input_schema(operation),
        "outputSchema": output_schema(operation),
        "annotations": annotations,
    }


def input_schema(operation):
    """The operation's own input schema; a write tool's also takes the idempotency key."""
    schema = operation.input().json_schema()
    if not operation.read_only:
        schema["properties"][IDEMPOTENCY_ARGUMENT] = IDEMPOTENCY_KEY.json_schema()
    return schema


def idempotency_key(operation, arguments, meta):
    """The call's key, from `_meta` or the argument (§4.1), and the arguments the operation itself takes.
    Both given and different is invalid_body naming the argument."""
    from_meta = meta.get(IDEMPOTENCY_META)
    if operation.read_only or not isinstance(arguments, dict) or IDEMPOTENCY_ARGUMENT not in arguments:
        return from_meta, arguments
    arguments = dict(arguments)
    argument = IDEMPOTENCY_KEY.validate(arguments.pop(IDEMPOTENCY_ARGUMENT), IDEMPOTENCY_ARGUMENT)
    if from_meta is not None and from_meta != argument:
        raise InvalidBody(f"{IDEMPOTENCY_ARGUMENT} and _meta[\"{IDEMPOTENCY_META}\"] differ; send one key",
                          field=IDEMPOTENCY_ARGUMENT)
    return argument, arguments


def tool_list():
    return [tool_definition(operation) for operation in OPERATIONS.values()]


def tool_result(body):
    return {"content": [{"type": "text", "text": json.dumps(body, ensure_ascii=False)}],
            "structuredContent": body, "isError": False}


def refusal_body(error):
    """§13's MCP shape: the HTTP API's error object plus the status the HTTP API would answer."""
    body = error.as_body()
    body["error"]["status"] = error.status
    return body


def refusal_result(error):
    return {"content": [{"type": "text", "text": f"{error.reason}: {error.message}"}],
            "structuredContent": refusal_body(error), "isError": True}


TOOLS = Door("mcp", refuse=refusal_result, answer=lambda answer: tool_result(answer[1]))


def call_tool(params, authenticate):
    """`tools/call`: its result, or for a call that holds (§16) an awaitable of it. `authenticate()` returns
    the caller's actor or raises `token_invalid`; it is asked only by tools that need one, and first, as
    §13's precedence puts `token_invalid` before all else."""
    name = params.get("name")
    if not isinstance(name, str):
        raise MCPError(INVALID_PARAMS, "tools/call needs params.name, a string")
    operation = OPERATIONS.get(name)
    if operation is None:
        raise MCPError(INVALID_PARAMS, f"unknown tool: {name}")
    meta = params.get("_meta") or {}
    if not isinstance(meta, dict):
        raise MCPError(INVALID_PARAMS, "params._meta must be an object")
    return TOOLS.run(operation.name, run_tool, operation, authenticate, params.get("arguments"), meta)


def run_tool(operation, authenticate, arguments, meta):
    """§13's order: `token_invalid` first, then this door's idempotency argument, then the operation."""
    actor = authenticate() if operation.needs_actor else None
    key, arguments = idempotency_key(operation, {} if arguments is None else arguments, meta)
    return call(operation, actor, arguments, key)
