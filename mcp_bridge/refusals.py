"""A refused resource read or subscription (Parley v1 §2): JSON-RPC error -32602 whose `data` is the §13
refusal `{"reason", "message", "detail"}`, in both eras."""
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from parley_site.exception_handler import as_parley_error


def refused(error):
    return MCPError(INVALID_PARAMS, f"{error.reason}: {error.message}", data=error.as_body()["error"])


def read_refused(exc):
    """The MCPError for a refusal, or None for a real fault (which stays an internal error)."""
    error = as_parley_error(exc)
    return None if error is None else refused(error)
