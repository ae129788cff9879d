"""Structured request logs: one JSON line per request, without secrets.

Logged: method, path (never the query string), status, duration, the §13 reason of a refusal, the acting
identity (public by design, §3), a request id. Never logged: headers (the bearer token lives there), query
strings, bodies."""
import json
import logging
import re
import time
import uuid

from asgiref.sync import iscoroutinefunction, markcoroutinefunction

logger = logging.getLogger("parley.request")

REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,64}")
REASON_PEEK_BYTES = 4096  # refusals are small; anything larger is not worth parsing for a log line


def request_id(request):
    """The load balancer's X-Request-ID when it looks like one (so log lines join up across hops), else a new
    one. A hostile header value is never echoed into logs."""
    return checked_request_id(request.headers.get("X-Request-ID", ""))


def checked_request_id(given):
    return given if REQUEST_ID_PATTERN.fullmatch(given) else uuid.uuid4().hex


def refusal_reason(response):
    if response.status_code < 400 or response.streaming or len(response.content) > REASON_PEEK_BYTES:
        return None
    if not response.get("Content-Type", "").startswith("application/json"):
        return None
    try:
        return json.loads(response.content)["error"]["reason"]
    except (ValueError, KeyError, TypeError):
        return None


class RequestLogMiddleware:
    """Sync and async alike: under ASGI a held call is logged once it has answered, with its whole time."""

    sync_capable = async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self.__acall__(request)
        started = time.perf_counter()
        return log(request, self.get_response(request), started)

    async def __acall__(self, request):
        started = time.perf_counter()
        return log(request, await self.get_response(request), started)


def log(request, response, started):
    """One line for the answered request; the response carries its request id back."""
    rid = request_id(request)
    response["X-Request-ID"] = rid
    actor = getattr(request, "auth", None)  # DRF copies the authenticated Actor onto the request
    log_exchange(request.method, request.path, response.status_code, started,
                 identity=getattr(actor, "identity", None), reason=refusal_reason(response), rid=rid)
    return response


def log_exchange(method, path, status, started, *, identity=None, reason=None, rid=None, given_id=""):
    """The line itself, for requests Django serves and for those the ASGI application serves beside it
    (MCP, parley_site.asgi)."""
    fields = {
        "request_id": rid or checked_request_id(given_id), "method": method, "path": path, "status": status,
        "duration_ms": round((time.perf_counter() - started) * 1000, 2), "identity": identity, "reason": reason,
    }
    level = logging.ERROR if status >= 500 else logging.INFO
    logger.log(level, "%s %s %s", method, path, status, extra={"fields": fields})


class JsonFormatter(logging.Formatter):
    """Every log record as one JSON object; `extra={"fields": {...}}` adds structured fields."""

    # logging calls it as a plain function; mypy would bind it as a method taking the formatter.
    converter = time.gmtime  # type: ignore[assignment]

    def format(self, record):
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname, "logger": record.name, "pid": record.process,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)
