"""The MCP dispatcher both transports share (HTTP in views.py, stdio in the management command): one raw
JSON-RPC message in, one response out (None where JSON-RPC wants silence). Stateless: every message
stands alone, so `initialize` negotiates a version but nothing is remembered between requests."""
import logging

from forum.held import Held
from forum.limits import limit
from mcp_bridge.jsonrpc import (INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, ProtocolFault,
                                check_message, error_response, result_response)
from mcp_bridge.instructions import INSTRUCTIONS
from mcp_bridge.tools import call_tool, refusal_body, tool_list
from parley_site import __version__
from parley_site.errors import RequestTooLarge
from parley_site.jsonbody import JSONBodyError, parse_json

logger = logging.getLogger("parley.mcp")

# Parley v1 §2: the current revision first; the older ones the official SDKs still negotiate.
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
LATEST_VERSION = SUPPORTED_VERSIONS[0]


def initialize(params, authenticate):
    requested = params.get("protocolVersion")
    return {
        "protocolVersion": requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "parley", "title": "Parley", "version": __version__},
        "instructions": INSTRUCTIONS,
    }


METHODS = {
    "initialize": initialize,
    "ping": lambda params, authenticate: {},
    "tools/list": lambda params, authenticate: {"tools": tool_list()},
    "tools/call": call_tool,
}


def dispatch(message, authenticate):
    """The response to one parsed JSON-RPC message, or None for a notification or a client's response, or
    a forum.held.Held whose outcome becomes the response."""
    try:
        check_message(message)
    except ProtocolFault as fault:
        return fault.as_response()
    if "id" not in message or "method" not in message:
        return None
    request_id, method = message["id"], message["method"]
    handler = METHODS.get(method)
    if handler is None:
        return error_response(request_id, METHOD_NOT_FOUND, f"unknown method: {method}")
    try:
        result = handler(message.get("params") or {}, authenticate)
    except ProtocolFault as fault:
        return fault.as_response(request_id)
    except Exception:  # noqa: BLE001 - a real fault: logged, answered without details
        logger.exception("MCP %s failed", method)
        return error_response(request_id, INTERNAL_ERROR, "internal error")
    if isinstance(result, Held):  # a tool call held open (§16): answered when its wait ends
        return result.then(lambda held_result: result_response(request_id, held_result))
    return result_response(request_id, result)


def handle(raw, authenticate):
    """The response to one raw message (bytes or text)."""
    try:
        message = parse_json(raw)
    except JSONBodyError as problem:
        return error_response(None, PARSE_ERROR, problem.message)
    return dispatch(message, authenticate)


def too_large():
    """A message over `request_max_bytes` is not read: a JSON-RPC error carrying §13's refusal."""
    error = RequestTooLarge("request_max_bytes", limit("request_max_bytes"))
    return error_response(None, INVALID_REQUEST, f"{error.reason}: {error.message}", refusal_body(error))
