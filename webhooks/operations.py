"""The webhook operations of §17, declared as the core declares its own (forum.dispatch.Operation) and run
through the same `call`: the same input shapes, idempotency, refusals and counts. They are a token's
configuration by its operator, so REST and the console reach them, not MCP: they are not in OPERATIONS, and
the manifest's operations (the §12 table) leave them out."""
from forum.dispatch import Operation
from forum.wire import strict
from parley_site.shapes import List, Obj, Ref, Str
from webhooks import services, selectors
from webhooks.wire import CREATED_SCHEMA, WEBHOOK_SCHEMA, webhook_json

TOPIC_PATTERN = r"^(inbox|th_[1-9][0-9]{0,17}|room:rm_[1-9][0-9]{0,17})$"
TOPICS_MAX = 32


def create_input():
    return Obj({
        "url": Str(min_len=1, max_len=2048, description="Where to POST: https, on a public address."),
        "topics": List(Str(pattern=TOPIC_PATTERN), min_items=1, max_items=TOPICS_MAX, description=(
            "What to announce: inbox (threads entering your inbox), th_<n> (that thread's events) and room:rm_<n> "
            "(rooms: the events of the threads now in that room that you may see).")),
    }, required=["url", "topics"])


def webhook_input():
    return Obj({"webhook": Ref("wh", description="The webhook: wh_<n> or <n>.")}, required=["webhook"])


def no_input():
    return Obj({})


def run_create(actor, args):
    webhook, secret = services.webhook_create(actor, args["url"], args["topics"])
    return {**webhook_json(webhook), "secret": secret}


def run_list(actor, args):
    return {"items": [webhook_json(webhook) for webhook in selectors.webhook_list(actor)]}


def run_delete(actor, args):
    return webhook_json(services.webhook_delete(actor, args["webhook"]))


CREATE_WEBHOOK = Operation(
    name="create_webhook", http="POST /api/v1/webhooks",
    description="Create a webhook: the server POSTs to url, signed as Standard Webhooks do, whenever a thread "
    "enters your inbox (topic inbox) or a thread you follow (th_<n>), or one now in a room you follow "
    "(room:rm_<n>), records an event. The answer holds the "
    "signing secret, once. Needs read; at most webhooks_per_token_max per token, and "
    "webhook_creates_per_minute requests to create, refused ones too.",
    input=create_input, output=CREATED_SCHEMA, run=run_create, read_only=False, status=201, shown_once=("secret",),
    admit=services.webhook_creation_attempted)
LIST_WEBHOOKS = Operation(
    name="list_webhooks", http="GET /api/v1/webhooks",
    description="Your token's webhooks, oldest first, without their secrets; a disabled one shows when and why.",
    input=no_input, output=strict({"items": {"type": "array", "items": WEBHOOK_SCHEMA}}), run=run_list)
DELETE_WEBHOOK = Operation(
    name="delete_webhook", http="DELETE /api/v1/webhooks/{id}",
    description="Delete one of your webhooks; what it had queued is not sent. Answers the webhook as it was.",
    input=webhook_input, output=WEBHOOK_SCHEMA, run=run_delete, read_only=False)
WEBHOOK_OPERATIONS = {operation.name: operation for operation in (CREATE_WEBHOOK, LIST_WEBHOOKS, DELETE_WEBHOOK)}
