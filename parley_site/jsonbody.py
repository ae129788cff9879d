"""Strict JSON parsing for request bodies, shared by REST and MCP: no NaN or Infinity, valid UTF-8, and a
bounded nesting depth, so hostile input is refused as `invalid_body` and never reaches a 500."""
import json

from parley_site.errors import InvalidBody

MAX_NESTING = 32


class JSONBodyError(InvalidBody):
    pass


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def nesting(value):
    depth, level = 0, [(value, 1)]
    while level:
        item, at = level.pop()
        depth = max(depth, at)
        if isinstance(item, dict):
            level.extend((child, at + 1) for child in item.values())
        elif isinstance(item, list):
            level.extend((child, at + 1) for child in item)
    return depth


def declared_length(meta):
    """The body size a request declares; a Content-Length that is not a number is refused, never a 500."""
    raw = meta.get("CONTENT_LENGTH") or "0"
    if not raw.isdigit():
        raise InvalidBody("Content-Length must be a number of bytes", field="Content-Length")
    return int(raw)


def require_json_media_type(content_type):
    """A body is read as JSON only when it says it is JSON: a form or text body is refused, never guessed."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        raise InvalidBody(f"send the body as application/json, not {media_type or 'no Content-Type'}",
                          field="Content-Type")


def parse_json(raw):
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        value = json.loads(text, parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as problem:
        raise JSONBodyError(f"the body is not valid JSON: {str(problem)[:200]}") from None
    if nesting(value) > MAX_NESTING:
        raise JSONBodyError(f"the body nests deeper than {MAX_NESTING} levels")
    return value
