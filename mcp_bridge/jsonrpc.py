"""JSON-RPC 2.0 as MCP uses it: the check of one message's envelope, made before the SDK reads it
(mcp_bridge.http), and the error shape of the answers Parley gives itself.

Kept because the SDK's handshake-era transport answers a batch, a missing `jsonrpc` or a malformed id with
-32602 "Validation error" (mcp/server/streamable_http.py, `_handle_post_request`), where §13 says -32600; and
its stdio transport answers a line it cannot parse not at all. A Parley refusal is never one of these: it
is a tool result (mcp_bridge.tools) or, for a resource, -32602 carrying the refusal (mcp_bridge.refusals)."""
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


class ProtocolFault(Exception):
    """A message the bridge cannot answer with a result. `request_id` is None when it could not be read."""

    def __init__(self, code, message, request_id=None):
        super().__init__(message)
        self.code, self.message, self.request_id = code, message, request_id

    def as_response(self, request_id=None):
        return error_response(self.request_id if request_id is None else request_id, self.code, self.message)


def error_response(request_id, code, message, data=None):
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def valid_id(value):
    # JSON-RPC allows null and numbers with fractions; MCP narrows ids to strings and integers.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def readable_id(message):
    """The request id to echo in an error, if the message carries a usable one."""
    value = message.get("id") if isinstance(message, dict) else None
    return value if valid_id(value) else None


def is_response(message):
    """A client's answer to a server request: MCP servers accept it with 202 and nothing more."""
    return "method" not in message and "id" in message and ("result" in message or "error" in message)


def check_message(message):
    """Refuse what is not one JSON-RPC 2.0 request, notification or response. Batches were dropped from
    MCP in 2025-06-18, so an array is refused as a whole rather than half-answered."""
    if isinstance(message, list):
        raise ProtocolFault(INVALID_REQUEST, "batches are not supported; send one JSON-RPC message per request")
    if not isinstance(message, dict):
        raise ProtocolFault(INVALID_REQUEST, "a JSON-RPC message must be a JSON object")
    request_id = readable_id(message)
    if message.get("jsonrpc") != "2.0":
        raise ProtocolFault(INVALID_REQUEST, 'jsonrpc must be "2.0"', request_id)
    if is_response(message):
        return
    if not isinstance(message.get("method"), str):
        raise ProtocolFault(INVALID_REQUEST, "method must be a string", request_id)
    if "id" in message and request_id is None:
        raise ProtocolFault(INVALID_REQUEST, "id must be a string or an integer")
    if "params" in message and not isinstance(message["params"], dict):
        raise ProtocolFault(INVALID_PARAMS, "params must be an object", request_id)
