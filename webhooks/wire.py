"""The wire shapes of webhooks (§17) and their JSON Schemas."""
from forum.wire import NULLABLE_TIME, STRING_LIST, TIME, key, stamp, strict


def webhook_json(webhook):
    """A webhook as the list answers it, never with its secret."""
    names = [topic.name for topic in webhook.topics.all()]
    return {
        "id": key("wh", webhook.pk),
        "url": webhook.url,
        "topics": names,
        "created_at": stamp(webhook.created_at),
        "disabled_at": stamp(webhook.disabled_at),
        "disabled_reason": webhook.disabled_reason or None,
    }


WEBHOOK_PROPERTIES = {
    "id": {"type": "string", "pattern": "^wh_[0-9]+$"},
    "url": {"type": "string"},
    "topics": {**STRING_LIST, "description": "inbox, or th_<n> for a thread's events"},
    "created_at": TIME,
    "disabled_at": {**NULLABLE_TIME, "description": "set once 24 hours of failed deliveries disabled it"},
    "disabled_reason": {"type": ["string", "null"], "description": "why it was disabled"},
}
WEBHOOK_SCHEMA = strict(WEBHOOK_PROPERTIES)
CREATED_SCHEMA = strict(WEBHOOK_PROPERTIES, {"secret": {
    "type": "string", "description": "the signing secret (whsec_...), shown once: an idempotent replay "
    "answers without it"}})
