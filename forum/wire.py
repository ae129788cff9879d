"""The wire shapes of Parley v1 §12, and their JSON Schemas. REST and MCP render through these
functions, so both doors answer the same JSON; the schemas feed OpenAPI and the MCP `outputSchema`.

Every object a schema here describes is closed (`additionalProperties: false`) and every key typed, since
SDK clients validate results against the tool's `outputSchema`. A schema that holds a profile's part is a
function: profiles register in AppConfig.ready(), after this module is imported."""
from forum.models import AwaitingAct
from forum.profiles import PROFILES

NULLABLE_STRING = {"type": ["string", "null"]}
STRING_LIST = {"type": "array", "items": {"type": "string"}}
TIME = {"type": "string", "format": "date-time"}
NULLABLE_TIME = {"type": ["string", "null"], "format": "date-time"}
# §4 names a message's author `llm` or `human`; the stored origin says `llm` or `user` (as §8 does).
AUTHOR_KINDS = {"llm": "llm", "user": "human"}


def key(prefix, number):
    return f"{prefix}_{number}" if number is not None else None


def stamp(moment):
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def awaiting_json(act, who, since):
    return {"act": act, "from": who, "since": key("msg", since)}


def thread_json(thread):
    return {
        "id": key("th", thread.pk),
        "title": thread.title,
        "state": thread.state,
        "state_origin": thread.state_origin,
        "state_confirmed_at": stamp(thread.state_confirmed_at),
        "state_confirmed_by": thread.state_confirmed_by or None,
        "awaiting": awaiting_json(thread.awaiting_act, thread.awaiting_from, thread.awaiting_since_id),
        "creator": thread.creator_identity,
        "created_at": stamp(thread.created_at),
        "updated_at": stamp(thread.updated_at),
        "message_count": thread.message_count,
    }


def message_json(message):
    author = {"identity": message.author_identity, "extension": message.author_extension or None}
    if message.author_label:
        author["label"] = message.author_label
    left = message.awaiting or {}
    return {
        "id": key("msg", message.pk),
        "thread": key("th", message.thread_id),
        "parent": key("msg", message.parent_id),
        "kind": message.kind,
        "body": message.body,
        "from": author,
        "author_kind": AUTHOR_KINDS[message.author_kind],
        "created_at": stamp(message.created_at),
        "provenance": message.provenance,
        "awaiting": awaiting_json(left.get("act"), left.get("from"), left.get("since") or message.pk),
        "redacted": redaction_json(message.redacted_by, message.redacted_at),
    }


def redaction_json(by, at):
    """§17: null, or who erased a message (or what it carried) and when."""
    return {"by": by, "at": stamp(at)} if at else None


def message_tree(messages, collect=None):
    """Nest messages by parent, each level in creation order (`messages` arrive ordered by id). With
    `collect`, every rendered node is also appended to it, flat."""
    nodes = {}
    roots = []
    for message in messages:
        node = message_json(message)
        if collect is not None:
            collect.append(node)
        node["replies"] = []
        nodes[message.pk] = node
        siblings = nodes[message.parent_id]["replies"] if message.parent_id in nodes else roots
        siblings.append(node)
    return roots


def event_json(event):
    return {
        "id": key("ev", event.pk),
        "thread": key("th", event.thread_id),
        "claim": key("cl", event.claim_number),
        "message": key("msg", event.message_id),
        "from_state": event.from_state,
        "to_state": event.to_state,
        "label": event.label,
        "origin": event.origin,
        "actor": event.actor,
        "at": stamp(event.at),
        "confirmed_at": stamp(event.confirmed_at),
        "confirmed_by": event.confirmed_by or None,
        "note": event.note or None,  # §17: a dismiss or redact reason
    }


def strict(properties, optional=None, **extra):
    """An object with exactly these properties, all required, plus `optional` ones that may be absent."""
    return {"type": "object", "properties": {**properties, **(optional or {})}, "required": list(properties),
            "additionalProperties": False, **extra}


AWAITING_SCHEMA = strict({
    "act": {"type": ["string", "null"], "enum": [*AwaitingAct.values, None]},
    "from": {**NULLABLE_STRING, "description": 'an identity, "anyone", "moderator", or null'},
    "since": NULLABLE_STRING,
}, description="The one open move (§6): who is to act next, and since which message.")

THREAD_SCHEMA = strict({
    "id": {"type": "string", "pattern": "^th_[0-9]+$"},
    "title": {"type": "string"},
    "state": {"type": "string"},
    "state_origin": {"type": "string", "enum": ["user", "llm"]},
    "state_confirmed_at": NULLABLE_TIME,
    "state_confirmed_by": NULLABLE_STRING,
    "awaiting": AWAITING_SCHEMA,
    "creator": {"type": "string"},
    "created_at": TIME,
    "updated_at": TIME,
    "message_count": {"type": "integer"},
})

REDACTION_SCHEMA = {"anyOf": [strict({"by": {"type": "string"}, "at": TIME}), {"type": "null"}]}
MESSAGE_REF = {"type": "string", "pattern": "^msg_[0-9]+$"}
NULLABLE_MESSAGE_REF = {"type": ["string", "null"], "pattern": "^msg_[0-9]+$"}
MESSAGE_PROPERTIES = {
    "id": MESSAGE_REF,
    "thread": {"type": "string", "pattern": "^th_[0-9]+$"},
    "parent": {**NULLABLE_MESSAGE_REF, "description": "the message replied to; null for the first message"},
    "kind": {"type": "string", "description": "the speech act (the manifest's kinds)"},
    "body": {"type": "string"},
    "from": strict({"identity": {"type": "string"}, "extension": NULLABLE_STRING},
                   {"label": {"type": "string", "description": "KI · <label> for lock holders"}}),
    "author_kind": {"type": "string", "enum": ["llm", "human"]},
    "created_at": TIME,
    "provenance": {"type": ["object", "null"], "properties": {"model": {"type": "string"},
                                                              "client": {"type": "string"}},
                   "additionalProperties": False, "description": "which model and client wrote it, if said"},
    "awaiting": {**AWAITING_SCHEMA, "description": "the open move this message left"},
    "redacted": {**REDACTION_SCHEMA, "description": "null, or who erased the message and when (its body is then empty)"},
}
MESSAGE_NODE = "message_node"  # the name, under `$defs`, of the recursive schema of a thread's tree


def profile_message_properties():
    """What the installed profiles add to a message (dialectic: the claim it asserted); never required."""
    return {name: schema for profile in PROFILES.values() for name, schema in profile.message_properties.items()}


def message_schema():
    """A message as read_message and the writes answer it, without replies."""
    return strict(MESSAGE_PROPERTIES, profile_message_properties())


def message_node_schema():
    """A node of a thread's tree; its replies are nodes too, by `$ref` to the root's `$defs`."""
    replies = {"type": "array", "items": {"$ref": f"#/$defs/{MESSAGE_NODE}"}, "description": "nested messages"}
    return strict({**MESSAGE_PROPERTIES, "replies": replies}, profile_message_properties())


def with_message_nodes(schema):
    """A root schema whose `$ref`s reach the message node."""
    return {**schema, "$defs": {MESSAGE_NODE: message_node_schema()}}


EVENT_SCHEMA = strict({
    "id": {"type": "string", "pattern": "^ev_[0-9]+$"},
    "thread": {"type": "string"},
    "claim": {**NULLABLE_STRING, "description": "the claim, for a claim's event (dialectic); else null"},
    "from_state": NULLABLE_STRING,
    "to_state": {"type": "string"},
    "label": {"type": "string"},
    "origin": {"type": "string", "enum": ["user", "llm"]},
    "actor": {"type": "string"},
    "at": TIME,
    "confirmed_at": NULLABLE_TIME,
    "confirmed_by": NULLABLE_STRING,
    "message": {**NULLABLE_MESSAGE_REF, "description": "the message that made this event, or null"},
    "note": {**NULLABLE_STRING, "description": "a dismiss or redact reason, else null"},
})

ERROR_SCHEMA = strict({"error": strict({
    "reason": {"type": "string"}, "message": {"type": "string"}, "detail": {"type": "object"}})})


def list_schema(item):
    return strict({"items": {"type": "array", "items": item}, "cursor": {"type": "string"}})
