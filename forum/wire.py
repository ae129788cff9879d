"""The wire shapes of Parley v1 §12, each declared once (parley_site.records): the rendering REST and MCP
answer through, so both doors answer the same JSON, and the JSON Schema OpenAPI and the MCP `outputSchema`
describe it with. A schema that holds a profile's part is a function: profiles register in
AppConfig.ready(), after this module is imported."""
from forum.models import AwaitingAct, Origin
from forum.profiles import PROFILES
from parley_site.records import Field, Integer, Json, Key, Record, Text, Time, strict
from parley_site.records import key, stamp  # noqa: F401 - the wire's helpers, for the profiles' shapes

STRING_LIST = {"type": "array", "items": {"type": "string"}}
# §4 names a message's author `llm` or `human`; the stored origin says `llm` or `user` (as §8 does).
AUTHOR_KINDS = {"llm": "llm", "user": "human"}
ORIGINS = Text(enum=Origin.values)

AWAITING = Record({
    "act": Field(Text(enum=AwaitingAct.values), nullable=True),
    "from": Field(Text(), nullable=True, description='an identity, "anyone", "moderator", or null'),
    "since": Field(Key("msg"), nullable=True),
}, keyed=True, description="The one open move (§6): who is to act next, and since which message.")


def thread_awaiting(thread):
    return {"act": thread.awaiting_act, "from": thread.awaiting_from, "since": thread.awaiting_since_id}


def message_awaiting(message):
    """The open move a message left; its own id where it set the move itself (models.Message.awaiting)."""
    left = message.awaiting or {}
    return {"act": left.get("act"), "from": left.get("from"), "since": left.get("since") or message.pk}


THREAD = Record({
    "id": Field(Key("th"), "pk"),
    "title": Field(Text()),
    "state": Field(Text()),
    "state_origin": Field(ORIGINS),
    "state_confirmed_at": Field(Time(), nullable=True),
    "state_confirmed_by": Field(Text(), nullable=True),
    "awaiting": Field(AWAITING, thread_awaiting),
    "creator": Field(Text(), "creator_identity"),
    "created_at": Field(Time()),
    "updated_at": Field(Time()),
    "message_count": Field(Integer()),
    "room": Field(Key("rm"), "room_number", description="the room the thread is in now (§20)"),
})

# §17: who erased a message (or what it carried) and when; read from an object's redacted_by and _at.
REDACTION = Record({"by": Field(Text(), "redacted_by"), "at": Field(Time(), "redacted_at")})


def redaction(obj):
    return obj if obj.redacted_at else None


AUTHOR = Record({
    "identity": Field(Text(), "author_identity"),
    "extension": Field(Text(), "author_extension", nullable=True),
    "label": Field(Text(), "author_label", optional=True, description="KI · <label> for lock holders"),
})
PROVENANCE = Json({"type": "object", "properties": {"model": {"type": "string"}, "client": {"type": "string"}},
                   "additionalProperties": False})

MESSAGE = Record({
    "id": Field(Key("msg"), "pk"),
    "thread": Field(Key("th"), "thread_id"),
    "parent": Field(Key("msg"), "parent_id", nullable=True,
                    description="the message replied to; null for the first message"),
    "kind": Field(Text(), description="the speech act (the manifest's kinds)"),
    "body": Field(Text()),
    "from": Field(AUTHOR, lambda message: message),
    "author_kind": Field(Text(enum=list(AUTHOR_KINDS.values())),
                         lambda message: AUTHOR_KINDS[message.author_kind]),
    "created_at": Field(Time()),
    "provenance": Field(PROVENANCE, nullable=True, description="which model and client wrote it, if said"),
    "awaiting": Field(AWAITING, message_awaiting, description="the open move this message left"),
    "redacted": Field(REDACTION, redaction, nullable=True,
                      description="null, or who erased the message and when (its body is then empty)"),
})

EVENT = Record({
    "id": Field(Key("ev"), "pk"),
    "thread": Field(Key("th"), "thread_id"),
    "claim": Field(Key("cl"), "claim_number", nullable=True,
                   description="the claim, for a claim's event (dialectic); else null"),
    "message": Field(Key("msg"), "message_id", nullable=True,
                     description="the message that made this event, or null"),
    "from_state": Field(Text(), nullable=True),
    "to_state": Field(Text()),
    "label": Field(Text()),
    "origin": Field(ORIGINS),
    "actor": Field(Text()),
    "at": Field(Time()),
    "confirmed_at": Field(Time(), nullable=True),
    "confirmed_by": Field(Text(), nullable=True),
    "note": Field(Text(), nullable=True, description="a dismiss or redact reason, else null"),  # §17
    "room": Field(Key("rm"), "room_number", description="the thread's room when the event was recorded (§20)"),
    "from_room": Field(Key("rm"), "from_room_number", nullable=True,
                       description="for a move, the room the thread left; else null (§20)"),
})

thread_json, message_json, event_json = THREAD.render, MESSAGE.render, EVENT.render
THREAD_SCHEMA, EVENT_SCHEMA = THREAD.schema(), EVENT.schema()


def message_tree(messages, collect=None):
    """Nest messages by parent, each level in creation order (`messages` arrive ordered by id). With
    `collect`, every rendered node is also appended to it, flat."""
    nodes = {}
    roots: list[dict] = []
    for message in messages:
        node = message_json(message)
        if collect is not None:
            collect.append(node)
        node["replies"] = []
        nodes[message.pk] = node
        siblings = nodes[message.parent_id]["replies"] if message.parent_id in nodes else roots
        siblings.append(node)
    return roots


MESSAGE_NODE = "message_node"  # the name, under `$defs`, of the recursive schema of a thread's tree


def profile_message_properties():
    """What the installed profiles add to a message (dialectic: the claim it asserted); never required."""
    return {name: schema for profile in PROFILES.values() for name, schema in profile.message_properties.items()}


def listed_thread_schema():
    """A thread as inbox and list_threads list it, with the keys a profile's decoration may add (reputation:
    `reputation` under annotate=reputation, §21); never required."""
    return THREAD.schema({name: schema for profile in PROFILES.values()
                          for name, schema in profile.item_properties.items()})


def message_schema():
    """A message as read_message and the writes answer it, without replies."""
    return MESSAGE.schema(profile_message_properties())


def message_node_schema():
    """A node of a thread's tree; its replies are nodes too, by `$ref` to the root's `$defs`."""
    replies = {"type": "array", "items": {"$ref": f"#/$defs/{MESSAGE_NODE}"}, "description": "nested messages"}
    return strict({**MESSAGE.properties(), "replies": replies},
                  {**MESSAGE.optional_properties(), **profile_message_properties()})


def with_message_nodes(schema):
    """A root schema whose `$ref`s reach the message node."""
    return {**schema, "$defs": {MESSAGE_NODE: message_node_schema()}}


ERROR_SCHEMA = strict({"error": strict({
    "reason": {"type": "string"}, "message": {"type": "string"}, "detail": {"type": "object"}})})


def list_schema(item):
    return strict({"items": {"type": "array", "items": item}, "cursor": {"type": "string"}})
