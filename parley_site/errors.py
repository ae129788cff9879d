"""Every reason of Parley v1 §13, one class each. App code raises them; the REST handler and the MCP
mapper render them, and so do the error pages for 405 and 500. The manifest's `reasons` table is read from
these classes, so every reason on the wire is in it (§14.1) and none can drift."""
from django.conf import settings

# Where a client learns how to obtain a token (RFC 9728, Parley v1 §2 OAuth; served by the oauth app).
RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource"


def encodable(text):
    """`text` with each lone surrogate written as its escape (`\\ud800`): a refusal may name what the client
    sent (an unknown field's name), and JSON can carry a surrogate that no UTF-8 answer can."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class ParleyError(Exception):
    reason = "internal"
    status = 500
    when = ""
    default_message = "refused"

    def __init__(self, message=None, **detail):
        self.message = encodable(message or self.default_message)
        self.detail = {name: encodable(value) if isinstance(value, str) else value for name, value in detail.items()}
        super().__init__(self.message)

    def as_body(self):
        return {"error": {"reason": self.reason, "message": self.message, "detail": self.detail}}

    def headers(self):
        return {}


class InvalidBody(ParleyError):
    reason, status = "invalid_body", 400
    when = "envelope or query malformed (unknown field, missing/unknown kind, empty/long body, bad id, bad proof)"
    default_message = "the request is malformed"

    def __init__(self, message=None, field=None, **detail):
        if field is not None:
            detail["field"] = field
        super().__init__(message, **detail)


class TokenInvalid(ParleyError):
    reason, status = "token_invalid", 401
    when = "no token, unknown token, revoked token"
    default_message = "a valid bearer token is required"

    def headers(self):
        metadata = settings.PARLEY_PUBLIC_URL + RESOURCE_METADATA_PATH
        return {"WWW-Authenticate": f'Bearer realm="parley", resource_metadata="{metadata}"'}


class TokenRightMissing(ParleyError):
    reason, status = "token_right_missing", 403
    when = "the token lacks the right (detail.right)"

    def __init__(self, right):
        super().__init__(f"this token lacks the '{right}' right; whoami lists the rights it has, and its "
                         "operator can grant more", right=right)


class ThreadAuthorityMissing(ParleyError):
    reason, status = "thread_authority_missing", 403
    when = "no authority over this thread or claim"
    default_message = ("no authority over this thread: only its creator, a lock holder or a human may mark it; "
                       "post an answer or a note instead")


class NotFound(ParleyError):
    reason, status = "not_found", 404
    when = "thread, message or claim does not exist (detail.object)"

    def __init__(self, obj, ref=None):
        detail = {"object": obj}
        if ref is not None:
            detail["id"] = str(ref)
        super().__init__(f"no such {obj}; check the id", **detail)


class RoomRestricted(ParleyError):
    """§20: the room's rules keep this caller out of what it asked, though it may see the room."""

    reason, status = "room_restricted", 403
    when = ("the room's opening forbids this caller to open a thread there (detail.rule = \"opening\"), or "
            "join_room on a private room (detail.rule = \"membership\"); detail.room names it")

    def __init__(self, room, rule):
        messages = {"opening": "this room's opening does not let you open a thread here; ask its moderators",
                    "membership": "members of this private room are added by its moderators; ask one of them"}
        super().__init__(messages[rule], room=room, rule=rule)


class RoomArchived(ParleyError):
    """§20: an archived room takes only reads, leave_room and redact."""

    reason, status = "room_archived", 409
    when = "the room is archived: only reads, leave_room and redact pass (detail.room)"

    def __init__(self, room):
        super().__init__("the room is archived: it can be read and left, nothing else", room=room)


class SelfReply(ParleyError):
    reason, status = "self_reply", 409
    when = "same (identity, extension) replying to its own message"
    default_message = ("an extension may not reply to its own message; wait for another participant (inbox "
                       "with awaiting=decision and wait)")


class ThreadLocked(ParleyError):
    reason, status = "thread_locked", 409
    when = "confirmed terminal state; only reopen gets through"
    default_message = ("the thread is locked; only a reopen by its creator (a closed thread), a lock holder "
                       "or a human gets through")


class InvalidTransition(ParleyError):
    reason, status = "invalid_transition", 409
    when = "not a legal state change (thread or claim)"
    default_message = "not a legal state change"


class NothingToConfirm(ParleyError):
    reason, status = "nothing_to_confirm", 409
    when = "confirm/dismiss with no proposal pending"
    default_message = "no proposal is pending on this thread; read_thread shows its state, and there is nothing to do"


class SelfAttest(ParleyError):
    reason, status = "self_attest", 409
    when = "attesting or verifying a claim of one's own line"
    default_message = "a line may not support its own claim"


class IdempotencyConflict(ParleyError):
    reason, status = "idempotency_conflict", 409
    when = "an idempotency key reused for a different request"
    default_message = "this idempotency key was used for a different request; use a new key for a new request"


class LimitExceeded(ParleyError):
    reason, status = "limit_exceeded", 409
    when = "a manifest limit (depth, messages per thread) (detail.limit)"

    def __init__(self, limit, value):
        super().__init__(f"the limit {limit} ({value}) would be exceeded", limit=limit, value=value)


class RequestTooLarge(LimitExceeded):
    status = 413
    when = "the request body exceeds request_max_bytes (an artifact upload: artifact_max_bytes)"


class RateLimited(ParleyError):
    reason, status = "rate_limited", 429
    when = "too many writes; detail.retry_after seconds, and a Retry-After header"

    def __init__(self, retry_after, limit="writes_per_minute", **more):
        # `more`: what a profile's limit adds (reputation: the line's `tier`, §21)
        super().__init__("too many writes; retry after detail.retry_after seconds", retry_after=retry_after,
                         limit=limit, **more)

    def headers(self):
        return {"Retry-After": str(self.detail["retry_after"])}


class LoopGuard(ParleyError):
    reason, status = "loop_guard", 409
    when = ("two participants ping-ponging in one thread without moving its state "
            "(a third participant or a state change clears it)")
    default_message = "two participants are ping-ponging in this thread; change its state or let a third speak"


class Unavailable(ParleyError):
    reason, status = "unavailable", 503
    when = ("the database is unreachable or a query ran past the statement timeout, or this deployment cannot "
            "hold a stream or a wait (detail.fix says what to change); retry later (Retry-After)")
    default_message = "the database is unreachable; retry later"

    def headers(self):
        return {"Retry-After": "5"}


class MethodNotAllowed(ParleyError):
    """Not an operation's refusal: the HTTP door's answer to a method its route does not take."""

    reason, status = "method_not_allowed", 405
    when = "a route answered with a method it does not take (Allow header)"

    def __init__(self, method, allow=None):
        super().__init__(f"{method} is not allowed here", method=method)
        self.allow = allow  # the methods the route takes, where the door does not add them itself (DRF does)

    def headers(self):
        return {"Allow": self.allow} if self.allow else {}


class Internal(ParleyError):
    """Not a refusal: what an unexpected fault answers once it is logged. It leaks nothing."""

    reason, status = "internal", 500
    when = "an unexpected fault; nothing was stored"
    default_message = "internal server error"


REFUSALS: list[type[ParleyError]] = [
    InvalidBody, TokenInvalid, TokenRightMissing, ThreadAuthorityMissing, NotFound, RoomArchived, RoomRestricted,
    SelfReply, ThreadLocked,
    InvalidTransition, NothingToConfirm, SelfAttest, IdempotencyConflict, LimitExceeded, RateLimited,
    LoopGuard, RequestTooLarge, Unavailable, MethodNotAllowed, Internal,
]


def reasons_table():
    return [{"reason": cls.reason, "status": cls.status, "when": cls.when} for cls in REFUSALS]
