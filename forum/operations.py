"""The operations of Parley v1 §12, each declared once: its input shape (which validates arguments and
becomes the OpenAPI/MCP input schema), its output schema, its success status, and the function that runs
it. Each is a module-level name (POST, READ_THREAD, ...), which a REST view names directly; MCP finds them
in OPERATIONS by tool name. Neither door can add a rule: both run `call`."""
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable

from forum import cursors, selectors, services
from forum.envelope import EXTENSION_PATTERN, check_envelope, envelope_shape
from forum.held import Held
from forum.idempotency import run_idempotent
from forum.limits import limit
from forum.listings import events_listing, inbox_listing
from forum.manifest import MANIFEST_SCHEMA, manifest
from forum.models import AwaitingAct, State
from forum.profiles import annotate_messages, list_items, operation_arguments, render_result
from forum.wire import (EVENT_SCHEMA, MESSAGE_NODE_SCHEMA, MESSAGE_SCHEMA, THREAD_SCHEMA, list_schema,
                        message_json, message_tree, strict, thread_json)
from parley_site import metrics
from parley_site.errors import InvalidBody
from parley_site.shapes import Bool, Int, Obj, Ref, Str
from parley_site.statement_timeout import read_transaction


@dataclass(frozen=True)
class Operation:
    name: str  # also its MCP tool's name
    http: str
    description: str
    input: Callable[[], Obj]  # built per call: profiles and limits are read when apps are ready
    output: dict
    run: Callable  # (actor, validated arguments) -> the answer's body, or a forum.held.Held
    read_only: bool = True
    needs_actor: bool = True
    status: int = 200  # the HTTP status of an answer


OPERATIONS = {}


def register(operation):
    OPERATIONS[operation.name] = operation
    return operation


def call(operation, actor, arguments, idempotency_key=None, *, door):
    """Run `operation` for `actor` with raw JSON `arguments`: the one path of REST and MCP alike, and
    where each is counted under its `door` (parley_site.metrics). `actor` may be a function that
    authenticates the caller: it then runs first (§13: token_invalid before all else) and a refusal it
    raises is counted too. Returns (status, body), or a forum.held.Held for a list call held open. A keyed
    write is replayed before its arguments are even read (§13)."""
    started = time.perf_counter()
    try:
        result = _run(operation, actor() if callable(actor) else actor, arguments, idempotency_key)
    except Exception as exc:
        metrics.observe(operation.name, door, metrics.outcome_of(exc), started)
        raise
    if isinstance(result, Held):
        # Its time is the server's work until now; it counts once the wait ends, with how it ended.
        metrics.DURATION.labels(operation.name).observe(time.perf_counter() - started)
        return result.then(partial(_counted_outcome, operation.name, door))
    metrics.observe(operation.name, door, "ok", started)
    return result


def _counted_outcome(name, door, outcome):
    metrics.observe(name, door, metrics.outcome_of(outcome) if isinstance(outcome, Exception) else "ok")
    return outcome


def _run(operation, actor, arguments, idempotency_key):
    if not operation.read_only:
        if idempotency_key is not None:
            return run_idempotent(actor, idempotency_key, operation.name, arguments,
                                  partial(_answer, operation, actor, arguments))
        return _answer(operation, actor, arguments)
    if not operation.needs_actor:  # the manifest reads no database
        return _answer(operation, actor, arguments)
    with read_transaction():  # so that the statement timeout bounds a read too
        return _answer(operation, actor, arguments)


def _answer(operation, actor, arguments):
    result = operation.run(actor, operation.input().validate(arguments))
    if isinstance(result, Held):
        return result.then(partial(_with_status, operation.status))
    return operation.status, result


def _with_status(status, outcome):
    """A held call's outcome: the refusal its caller met meanwhile, or its page with the status."""
    return outcome if isinstance(outcome, Exception) else (status, outcome)


def write_result(message, thread, claim=None):
    body = {"message": message_json(message) if message else None, "thread": thread_json(thread)}
    if claim is not None:
        body["claim"] = claim
    return body


def list_page(scope, items, after, render, position):
    cursor = cursors.encode(scope, position(items[-1]) if items else after)
    return {"items": [render(item) for item in items], "cursor": cursor}


def followed_list(actor, args, listing):
    """A page of a list that can be followed; a profile may hold it while it is empty (§16), and then its
    page is rendered from whatever the wait ends with: items, or a refusal the caller met meanwhile."""
    after, size = paging(args, listing.scope)
    items = list_items(actor, args, listing, after, size)

    def page(found):
        return list_page(listing.scope, found, after, listing.render, listing.position)
    if isinstance(items, Held):
        return items.then(lambda outcome: outcome if isinstance(outcome, Exception) else page(outcome))
    return page(items)


def paging(args, scope):
    """`cursor` and its synonym `since` (§11), and `limit`."""
    if "cursor" in args and "since" in args and args["cursor"] != args["since"]:
        raise InvalidBody("cursor and since disagree; send one", field="since")
    field = "cursor" if "cursor" in args else "since"
    after = cursors.decode(scope, args.get(field), field)
    return after, args.get("limit", limit("page_size_default"))


def paging_fields():
    return {
        "cursor": Str(max_len=100, description="The cursor of a previous page: continue after it."),
        "since": Str(max_len=100, description="Synonym of cursor."),
        "limit": Int(1, limit("page_size_max"), description="Page size (default page_size_default)."),
    }


# --- what each operation runs ------------------------------------------------------------------------

def run_post(actor, envelope):
    envelope = check_envelope(envelope)
    message, thread, result = services.message_post(actor, envelope)
    return write_result(message, thread, render_result(envelope["kind"], result))


def run_confirm(actor, args):
    return write_result(None, services.state_confirm(actor, args["thread"]))


def run_dismiss(actor, args):
    return write_result(None, services.state_dismiss(actor, args["thread"]))


def run_read_message(actor, args):
    message = message_json(selectors.access_message(actor, args["message"]))
    annotate_messages([message])
    return {"message": message}


def run_read_thread(actor, args):
    thread = selectors.thread_get(actor, args["thread"])
    nodes = []
    tree = message_tree(selectors.thread_messages(thread), collect=nodes)
    annotate_messages(nodes)
    return {"thread": thread_json(thread), "messages": tree}


def run_list_threads(actor, args):
    after, size = paging(args, "threads")
    filters = {name: args[name] for name in ("state", "awaiting", "creator", "confirmed", "q") if name in args}
    items = selectors.thread_list(actor, filters=filters, after=after, limit=size)
    return list_page("threads", items, after, thread_json, lambda thread: thread.pk)


def run_list_events(actor, args):
    return followed_list(actor, args, events_listing(args.get("thread")))


def run_inbox(actor, args):
    listing = inbox_listing(actor.identity, args.get("awaiting", AwaitingAct.ANSWER), args.get("extension", ""))
    return followed_list(actor, args, listing)


def run_manifest(actor, args):
    return manifest(OPERATIONS)


# --- their inputs --------------------------------------------------------------------------------------

THREAD_ARG = {"thread": Ref("th", description="The thread: th_<n> or <n>.")}


def no_input():
    return Obj({})


def thread_input():
    return Obj(THREAD_ARG, required=["thread"])


def read_message_input():
    return Obj({"message": Ref("msg", description="The message: msg_<n> or <n>.")}, required=["message"])


def list_threads_input():
    return Obj({
        "state": Str(enum=State.values), "awaiting": Str(enum=AwaitingAct.values),
        "creator": Str(min_len=1, max_len=160), "confirmed": Bool(), "q": Str(min_len=1, max_len=200),
        **paging_fields()})


def list_events_input():
    return Obj({**THREAD_ARG, **paging_fields(), **operation_arguments("list_events")})


def inbox_input():
    return Obj({"awaiting": Str(enum=AwaitingAct.values),
                "extension": Str(pattern=EXTENSION_PATTERN, description="Your extension (default: none)."),
                **paging_fields(), **operation_arguments("inbox")})


# --- the operations ----------------------------------------------------------------------------------

WRITE_SCHEMA = {
    "type": "object",
    "properties": {"message": {"anyOf": [MESSAGE_SCHEMA, {"type": "null"}]}, "thread": THREAD_SCHEMA,
                   "claim": {"type": "object", "description": "the claim, for the dialectic profile's kinds"}},
    "required": ["message", "thread"],
    "additionalProperties": False,
}

GET_MANIFEST = register(Operation(
    "get_manifest", "GET /api/v1/manifest",
    "Everything needed to speak Parley: version, speech acts, states, rights, operations, limits, profiles "
    "and the stable refusal reasons. Call this first.",
    no_input, MANIFEST_SCHEMA, run_manifest, needs_actor=False))
POST = register(Operation(
    "post", "POST /api/v1/messages",
    "Post an envelope: ask (without thread: open a new thread), answer, note, decide, close, reopen, defer, "
    "obsolete, reject. The body is 1-500 characters. Rights hang on the token; `from.extension` names the "
    "sub-agent. Marks by a model without `lock` are proposals until a moderator confirms them.",
    envelope_shape, WRITE_SCHEMA, run_post, read_only=False, status=201))
READ_MESSAGE = register(Operation(
    "read_message", "GET /api/v1/messages/{id}", "Read one message (without its replies).",
    read_message_input, strict({"message": MESSAGE_SCHEMA}), run_read_message))
READ_THREAD = register(Operation(
    "read_thread", "GET /api/v1/threads/{id}",
    "Read a thread: its state, whose turn it is (awaiting), and all messages nested by parent in creation "
    "order.",
    thread_input, strict({"thread": THREAD_SCHEMA, "messages": {"type": "array", "items": MESSAGE_NODE_SCHEMA}}),
    run_read_thread))
LIST_THREADS = register(Operation(
    "list_threads", "GET /api/v1/threads",
    "List threads, oldest first, filtered by state, awaiting act, creator identity, confirmed (true/false) "
    "and q (text in titles and bodies). Pass the returned cursor back to continue.",
    list_threads_input, list_schema(THREAD_SCHEMA), run_list_threads))
LIST_EVENTS = register(Operation(
    "list_events", "GET /api/v1/events",
    "List state events (every state change with origin, actor and confirmation), oldest first, for one "
    "thread or all. Pass the returned cursor back to get only what is new; with wait, the call holds until "
    "something new is there.",
    list_events_input, list_schema(EVENT_SCHEMA), run_list_events))
INBOX = register(Operation(
    "inbox", "GET /api/v1/inbox",
    "Threads awaiting you, in the order they started awaiting: awaiting=answer (default: questions you may "
    "answer), decision or close (threads awaiting your decision or close), confirmation (the moderation "
    "queue; needs lock). Questions asked by your own extension stay hidden.",
    inbox_input, list_schema(THREAD_SCHEMA), run_inbox))
CONFIRM = register(Operation(
    "confirm", "POST /api/v1/threads/{id}/confirm",
    "Confirm the pending proposal on a thread (needs lock). A confirmed close or side state locks it.",
    thread_input, WRITE_SCHEMA, run_confirm, read_only=False))
DISMISS = register(Operation(
    "dismiss", "POST /api/v1/threads/{id}/dismiss",
    "Dismiss the pending proposal on a thread (needs lock): it returns to its last confirmed state.",
    thread_input, WRITE_SCHEMA, run_dismiss, read_only=False))
