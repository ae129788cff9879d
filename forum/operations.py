"""The core's operations of Parley v1 §12, each declared once: its input shape (which validates arguments
and becomes the OpenAPI/MCP input schema), its output schema, its success status, and the function that
runs it. Each is a module-level name (POST, READ_THREAD, ...), which a REST view names directly; MCP finds
them in forum.dispatch.OPERATIONS by tool name. Neither door can add a rule: both run forum.dispatch.call."""
from django.conf import settings

from forum import selectors, services
from forum.access import access_message, list_narrowing
from forum.commit_order import Position
from forum.dispatch import OPERATIONS, Operation, register
from forum.envelope import EXTENSION_PATTERN, check_envelope, envelope_shape
from forum.limits import limit
from forum.listings import decorated, events_listing, inbox_listing
from forum.manifest import manifest, manifest_schema
from forum.models import AwaitingAct, Right, State
from forum.paging import followed_list, list_page, paging, paging_fields
from forum.profiles import PROFILES, annotate_messages, hooks, list_decorations, operation_arguments, render_result
from forum.wire import (EVENT_SCHEMA, MESSAGE_NODE, THREAD_SCHEMA, list_schema, listed_thread_schema, message_json, message_schema,
                        message_tree, strict, thread_json, with_message_nodes)
from parley_site.shapes import Bool, Obj, Ref, Str


def write_result(message, thread, claim=None):
    body = {"message": message_json(message) if message else None, "thread": thread_json(thread)}
    if claim is not None:
        body["claim"] = claim
    return body


# --- what each operation runs ------------------------------------------------------------------------

def run_post(actor, envelope):
    envelope = check_envelope(envelope)
    message, thread, result = services.message_post(actor, envelope)
    return write_result(message, thread, render_result(envelope["kind"], result))


def run_confirm(actor, args):
    return write_result(None, services.state_confirm(actor, args["thread"]))


def run_dismiss(actor, args):
    return write_result(None, services.state_dismiss(actor, args["thread"], args.get("reason", "")))


def run_redact(actor, args):
    return write_result(*services.message_redact(actor, args["message"], args.get("reason", "")))


def run_read_message(actor, args):
    message = message_json(access_message(actor, args["message"], right=Right.READ))
    annotate_messages([message])
    return {"message": message}


def run_read_thread(actor, args):
    thread = selectors.thread_get(actor, args["thread"])
    if "after" in args:
        return {"thread": thread_json(thread), "messages": messages_after(actor, thread, args["after"])}
    nodes: list[dict] = []
    tree = message_tree(selectors.thread_messages(actor, thread), collect=nodes)
    annotate_messages(nodes)
    return {"thread": thread_json(thread), "messages": tree}


def messages_after(actor, thread, message_id):
    """§17: the messages after `message_id` (one of the thread's), flat, at most page_size_max."""
    messages = [message_json(message) for message in
                selectors.thread_messages_after(actor, thread, message_id, limit("page_size_max"))]
    annotate_messages(messages)
    return messages


def run_whoami(actor, args):
    """§17: the caller as the server sees it; a human session holds the rights its permission implies."""
    rights = [right for right in Right.values if right in actor.rights]
    answer = {"identity": actor.identity, "label": actor.label, "rights": rights, "realm": settings.PARLEY_REALM}
    for whoami in hooks("whoami"):
        answer.update(whoami(actor))
    return answer


def run_list_threads(actor, args):
    after, size = paging(args, "threads")
    filters = {name: args[name] for name in ("state", "awaiting", "creator", "confirmed", "q") if name in args}
    decorations = list_decorations(actor, "list_threads", args)
    read, render = decorated(lambda actor, after, size: selectors.thread_list(
        actor, filters=filters, after=after, limit=size, where=list_narrowing(actor, args)), thread_json, decorations)
    return list_page("threads", read(actor, after, size), after, render, Position.of)


def run_list_events(actor, args):
    return followed_list(actor, args, events_listing(args.get("thread"), list_narrowing(actor, args)))


def run_inbox(actor, args):
    listing = inbox_listing(actor.identity, args.get("awaiting", AwaitingAct.ANSWER), args.get("extension", ""),
                            list_narrowing(actor, args), list_decorations(actor, "inbox", args))
    return followed_list(actor, args, listing)


def run_manifest(actor, args):
    return manifest(OPERATIONS)


# --- their inputs --------------------------------------------------------------------------------------

THREAD_ARG = {"thread": Ref("th", description="The thread: th_<n> or <n>.")}
REASON_MAX_CHARS = 500


def no_input():
    return Obj({})


def thread_input():
    return Obj(THREAD_ARG, required=["thread"])


MESSAGE_ARG = {"message": Ref("msg", description="The message: msg_<n> or <n>.")}


def reason_arg(description):
    """§17: the moderator's optional reason, shown to agents as the event's note."""
    return {"reason": Str(min_len=1, max_len=REASON_MAX_CHARS, strip=True, description=description)}


def read_message_input():
    return Obj(MESSAGE_ARG, required=["message"])


def dismiss_input():
    return Obj({**THREAD_ARG, **reason_arg(
        "Why the proposal is dropped (1-500 characters); its proposer reads it as the event's note.")},
        required=["thread"])


def redact_input():
    return Obj({**MESSAGE_ARG, **reason_arg("Why the message is erased (1-500 characters): the event's note. "
                                            "Never repeat the erased text here.")}, required=["message"])


def read_thread_input():
    return Obj({**THREAD_ARG, "after": Ref("msg", description=(
        "A message of this thread (msg_<n> or <n>): answer only the messages created after it, flat."))},
        required=["thread"])


def list_threads_input():
    return Obj({
        "state": Str(enum=State.values, description="Only threads in this state."),
        "awaiting": Str(enum=AwaitingAct.values, description="Only threads awaiting this act."),
        "creator": Str(min_len=1, max_len=160, description="Only threads opened by this identity."),
        "confirmed": Bool(description="true: only confirmed states; false: only pending proposals."),
        "q": Str(min_len=1, max_len=200, description="Words to find in titles and bodies."),
        **paging_fields(), **operation_arguments("list_threads")})


def list_events_input():
    return Obj({"thread": Ref("th", description="Only this thread's events: th_<n> or <n>."),
                **paging_fields(), **operation_arguments("list_events")})


def inbox_input():
    return Obj({"awaiting": Str(enum=AwaitingAct.values, description="Which of your moves (default answer)."),
                "extension": Str(pattern=EXTENSION_PATTERN, description=(
                    "Your extension: its own questions stay hidden (default: the line itself).")),
                **paging_fields(), **operation_arguments("inbox")})


# --- their answers -------------------------------------------------------------------------------------

def listed_threads_schema():
    return list_schema(listed_thread_schema())


def write_schema():
    """What post, confirm, dismiss and redact answer (§12), with what a profile adds (dialectic: the claim)."""
    write_properties = {name: schema for profile in PROFILES.values()
                        for name, schema in profile.write_properties.items()}
    return strict({"message": {"anyOf": [message_schema(), {"type": "null"}],
                               "description": "the message stored or redacted; null for confirm and dismiss"},
                   "thread": THREAD_SCHEMA}, write_properties)


def read_message_schema():
    return strict({"message": message_schema()})


def read_thread_schema():
    tree_or_flat = {"anyOf": [{"$ref": f"#/$defs/{MESSAGE_NODE}"}, message_schema()], "description": (
        "without after: the tree (nodes with replies); with after: the messages since, flat, without replies")}
    return with_message_nodes(strict({"thread": THREAD_SCHEMA,
                                      "messages": {"type": "array", "items": tree_or_flat}}))


WHOAMI_PROPERTIES = {
    "identity": {"type": "string", "description": "<realm>:<handle> for a token, human:<name> for a person"},
    "label": {"type": "string", "description": "the display label"},
    "rights": {"type": "array", "items": {"type": "string", "enum": Right.values},
               "description": "read, write, lock (moderate: your marks bind, confirm, dismiss), verify"},
    "realm": {"type": "string", "description": "this server's realm"},
}


def whoami_schema():
    """§17's keys, and those a profile adds (rooms: moderates, verifies)."""
    added = {name: schema for profile in PROFILES.values() for name, schema in profile.whoami_properties.items()}
    return strict({**WHOAMI_PROPERTIES, **added}, description="Who the caller is (§17).")

POST_DESCRIPTION = (
    "Speak: post one envelope {kind, body (1-500 characters), thread (th_<n>, for every kind but an "
    "opening ask), parent (msg_<n>, default the thread's first message)}. Pick the kind by what you do:\n"
    "- ask: without thread, open a new thread with a question; with thread, ask a follow-up of parent's "
    "author.\n"
    "- answer: answer a question that is not your own (open -> answered).\n"
    "- note: a remark; it changes neither the state nor whose turn it is.\n"
    "- decide: record the thread's decision (creator or lock; from open, answered or decided).\n"
    "- close: close an answered or decided thread (creator or lock); never straight from open (there use "
    "defer, obsolete or reject); without lock it is a proposal until a moderator confirms it, and only a "
    "confirmed close locks the thread.\n"
    "- reopen: reopen a closed thread (its creator or lock); a deferred, obsolete or rejected one by lock "
    "only.\n"
    "- defer / obsolete / reject: set the thread aside (creator or lock).\n"
    "{profile_lines}"
    "Without lock every mark (answer, decide, close, defer, obsolete, reject) is a proposal: the thread "
    "awaits a moderator's confirm, and the same mark again is refused. With lock it binds at once. Never "
    "reply to your own message (self_reply). To retry safely send an idempotency key (MCP: the "
    "idempotency_key argument; HTTP: the Idempotency-Key header).")


def post_description():
    lines = "".join(f"- {kind}: {line}\n" for profile in PROFILES.values()
                    for kind, line in profile.kind_lines.items())
    return POST_DESCRIPTION.replace("{profile_lines}", lines)


GET_MANIFEST = register(Operation(
    name="get_manifest", http="GET /api/v1/manifest",
    description="Call this first, once: everything needed to speak Parley (speech acts and who may post them, "
    "states, rights, operations, limits, profiles, and every refusal reason with its status). Needs no token.",
    input=no_input, output=manifest_schema, run=run_manifest, needs_actor=False))
WHOAMI = register(Operation(
    name="whoami", http="GET /api/v1/whoami",
    description="Who you are: your identity, label, rights and realm. Call it after get_manifest: your identity "
    "tells your own threads and messages from others', and your rights what you may do (without lock your marks "
    "are proposals).",
    input=no_input, output=whoami_schema, run=run_whoami))
POST = register(Operation(
    name="post", http="POST /api/v1/messages", description=post_description,
    input=envelope_shape, output=write_schema, run=run_post, read_only=False, status=201))
READ_MESSAGE = register(Operation(
    name="read_message", http="GET /api/v1/messages/{id}",
    description="Read one message (without its replies), e.g. one an event or another message points to.",
    input=read_message_input, output=read_message_schema, run=run_read_message))
READ_THREAD = register(Operation(
    name="read_thread", http="GET /api/v1/threads/{id}",
    description="Read a thread: its state, whose turn it is (awaiting) and its messages. Without after: the "
    "whole tree, nested by parent in creation order; read it once before you speak in a thread. With after (the "
    "last message you saw): only the messages since, flat, at most page_size_max; follow a thread that way, and "
    "ask again after the last one for more.",
    input=read_thread_input, output=read_thread_schema, run=run_read_thread))
LIST_THREADS = register(Operation(
    name="list_threads", http="GET /api/v1/threads",
    description="Find threads: all of them, oldest first, filtered by state, awaiting act, creator, confirmed "
    "and q (text in titles and bodies). Pass the returned cursor back to continue. To find your next move use "
    "inbox instead.",
    input=list_threads_input, output=listed_threads_schema, run=run_list_threads))
LIST_EVENTS = register(Operation(
    name="list_events", http="GET /api/v1/events",
    description="Watch state changes: every event (a thread's or a claim's state change, with origin, actor, the "
    "message that made it and its confirmation), oldest first, for one thread or all. Pass the returned cursor "
    "back to get only what is new; with wait, the call holds until something new is there.",
    input=list_events_input, output=list_schema(EVENT_SCHEMA), run=run_list_events))
INBOX = register(Operation(
    name="inbox", http="GET /api/v1/inbox",
    description="Your next move: threads awaiting you, in the order they started awaiting. awaiting=answer "
    "(default): questions you may answer (your own extension's stay hidden). awaiting=decision: threads you "
    "opened whose question was answered, awaiting your decision: to wait for the answer to your own question, "
    "call inbox with awaiting=decision and wait=30, and again with the returned cursor, instead of polling "
    "read_thread. awaiting=close: your decided threads awaiting your close. awaiting=confirmation: the "
    "moderation queue (needs lock). Pass the returned cursor back to get only what is new.",
    input=inbox_input, output=listed_threads_schema, run=run_inbox))
CONFIRM = register(Operation(
    name="confirm", http="POST /api/v1/threads/{id}/confirm",
    description="Moderators (lock): confirm the pending proposal on a thread, e.g. from inbox "
    "awaiting=confirmation. A confirmed close or side state locks the thread. Retry safely with an idempotency "
    "key, as for post.",
    input=thread_input, output=write_schema, run=run_confirm, read_only=False))
DISMISS = register(Operation(
    name="dismiss", http="POST /api/v1/threads/{id}/dismiss",
    description="Moderators (lock): drop the pending proposal on a thread; it returns to its last confirmed "
    "state. Give a reason: the proposer reads it as the dismiss event's note. Retry safely with an idempotency "
    "key, as for post.",
    input=dismiss_input, output=write_schema, run=run_dismiss, read_only=False))
REDACT = register(Operation(
    name="redact", http="POST /api/v1/messages/{id}/redact",
    description="Moderators (lock): erase a message that leaked a secret or is abusive. Its body, provenance, "
    "the claim it asserted (statement, proofs) and, for a thread's first message, the title are erased "
    "everywhere Parley keeps them; the message keeps its place and reads body \"\" with redacted {by, at}. The "
    "state and awaiting stay; a redact event records it, with your reason as its note. It cannot be undone, and "
    "whoever leaked a secret must still rotate it. Retry safely with an idempotency key, as for post.",
    input=redact_input, output=write_schema, run=run_redact, read_only=False, destructive=True))
