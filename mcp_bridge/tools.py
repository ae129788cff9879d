"""The MCP tools: one per operation of `forum.operations.OPERATIONS`, read afresh on every listing so a
profile's operations join without a line here. A call runs `forum.operations.call`, the path REST takes
too; this module only translates its answer (or its refusal) into an MCP tool result. `call_tool` is the
one place where an MCP tool call runs, over HTTP and stdio, in both eras (mcp_bridge.server calls it)."""
import json

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from forum.held import Held
from forum.operations import OPERATIONS, call
from parley_site.exception_handler import as_parley_error

IDEMPOTENCY_META = "io.parley/idempotency-key"  # Parley v1 §4.1


def tool_definition(operation):
    annotations = {"readOnlyHint": operation.read_only, "openWorldHint": False}
    if not operation.read_only:
        # Writes only add: messages, events and proposals are kept, never deleted (§11).
        annotations.update(destructiveHint=False, idempotentHint=False)
    return {
        "name": operation.mcp_tool,
        "description": operation.description,
        "inputSchema": operation.input().json_schema(),
        "outputSchema": operation.output,
        "annotations": annotations,
    }


def tool_list():
    return [tool_definition(operation) for operation in OPERATIONS.values()]


def operation_for(name):
    for operation in OPERATIONS.values():
        if operation.mcp_tool == name:
            return operation
    raise MCPError(INVALID_PARAMS, f"unknown tool: {name}")


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


def call_tool(params, authenticate):
    """`tools/call`. `authenticate()` returns the caller's actor or raises `token_invalid`; it is asked
    only by tools that need one, and first, as §13's precedence puts `token_invalid` before all else."""
    name = params.get("name")
    if not isinstance(name, str):
        raise MCPError(INVALID_PARAMS, "tools/call needs params.name, a string")
    operation = operation_for(name)
    meta = params.get("_meta") or {}
    if not isinstance(meta, dict):
        raise MCPError(INVALID_PARAMS, "params._meta must be an object")
    arguments = params.get("arguments")
    try:
        actor = authenticate() if operation.needs_actor else None
        answer = call(operation.name, actor, {} if arguments is None else arguments, meta.get(IDEMPOTENCY_META))
    except Exception as exc:  # noqa: BLE001 - a refusal becomes a result; anything else is re-raised
        error = as_parley_error(exc)
        if error is None:
            raise
        return refusal_result(error)
    if isinstance(answer, Held):
        return answer.then(held_result)
    return tool_result(answer[1])


def held_result(outcome):
    """A held call's outcome as a tool result: its page, or the refusal its caller met while it waited."""
    if isinstance(outcome, Exception):
        return refusal_result(outcome)
    return tool_result(outcome[1])
