"""The wire shapes of Parley v1 §12, and their JSON Schemas. REST and MCP render through these
functions, so both doors answer the same JSON; the schemas feed OpenAPI and the MCP `outputSchema`."""
from forum.models import AwaitingAct

NULLABLE_STRING = {"type": ["string", "null"]}
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
    }


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
        "from_state": event.from_state,
        "to_state": event.to_state,
        "label": event.label,
        "origin": event.origin,
        "actor": event.actor,
        "at": stamp(event.at),
        "confirmed_at": stamp(event.confirmed_at),
        "confirmed_by": event.confirmed_by or None,
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

_MESSAGE_PROPERTIES = {
    "id": {"type": "string", "pattern": "^msg_[0-9]+$"},
    "thread": {"type": "string"},
    "parent": NULLABLE_STRING,
    "kind": {"type": "string"},
    "body": {"type": "string"},
    "from": {"type": "object", "properties": {
        "identity": {"type": "string"}, "extension": NULLABLE_STRING,
        "label": {"type": "string", "description": "KI · <label> for lock holders"}},
        "required": ["identity", "extension"], "additionalProperties": False},
    "author_kind": {"type": "string", "enum": ["llm", "human"]},
    "created_at": TIME,
    "provenance": {"type": ["object", "null"]},
    "awaiting": AWAITING_SCHEMA,
}
# Profiles may add their view of a message (dialectic: the claim it asserted); never required.
PROFILE_MESSAGE_PROPERTIES = {
    "claim": {"type": ["object", "null"], "description": "dialectic profile: the claim this message "
                                                           "asserted, in its current state"},
}
MESSAGE_SCHEMA = strict(_MESSAGE_PROPERTIES, PROFILE_MESSAGE_PROPERTIES)
MESSAGE_NODE_SCHEMA = strict({**_MESSAGE_PROPERTIES, "replies": {
    "type": "array", "items": {"type": "object"}, "description": "nested messages"}}, PROFILE_MESSAGE_PROPERTIES)

EVENT_SCHEMA = strict({
    "id": {"type": "string", "pattern": "^ev_[0-9]+$"},
    "thread": {"type": "string"},
    "claim": NULLABLE_STRING,
    "from_state": NULLABLE_STRING,
    "to_state": {"type": "string"},
    "label": {"type": "string"},
    "origin": {"type": "string", "enum": ["user", "llm"]},
    "actor": {"type": "string"},
    "at": TIME,
    "confirmed_at": NULLABLE_TIME,
    "confirmed_by": NULLABLE_STRING,
})

ERROR_SCHEMA = strict({"error": strict({
    "reason": {"type": "string"}, "message": {"type": "string"}, "detail": {"type": "object"}})})


def list_schema(item):
    return strict({"items": {"type": "array", "items": item}, "cursor": {"type": "string"}})
