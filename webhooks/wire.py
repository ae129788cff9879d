"""The wire shape of webhooks (§17), declared once (parley_site.records) for its rendering and its JSON
Schema."""
from parley_site.records import Field, Key, ListOf, Record, Text, Time

WEBHOOK = Record({
    "id": Field(Key("wh"), "pk"),
    "url": Field(Text()),
    "topics": Field(ListOf(Text()), lambda webhook: [topic.name for topic in webhook.topics.all()],
                    description="inbox, th_<n> for a thread's events, or room:rm_<n> for those "
                                "of a room's threads"),
    "created_at": Field(Time()),
    "disabled_at": Field(Time(), nullable=True, description="set once 24 hours of failed deliveries disabled it"),
    "disabled_reason": Field(Text(), nullable=True, description="why it was disabled"),
})
# A webhook as the list answers it, never with its secret.
webhook_json, WEBHOOK_SCHEMA = WEBHOOK.render, WEBHOOK.schema()
CREATED_SCHEMA = WEBHOOK.schema({"secret": {
    "type": "string", "description": "the signing secret (whsec_...), shown once: an idempotent replay "
    "answers without it"}})
