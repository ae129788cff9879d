"""Webhooks (Parley v1 §17): a token's targets, the topics each follows, and their deliveries. Fields only:
webhooks.services moves these rows.

A delivery holds what it announces as ids alone, never a rendered payload: it is rendered when it is sent,
so a message redacted meanwhile is sent as it reads then, and no queue keeps what was erased."""
from django.db import models

from forum.models import Token


class Webhook(models.Model):
    token = models.ForeignKey(Token, on_delete=models.CASCADE, related_name="+")
    url = models.CharField(max_length=2048)
    # The signing secret (whsec_...), sealed (parley_site.sealing): the server signs with it, a dump of
    # the database alone does not reveal it.
    sealed_secret = models.TextField(editable=False)
    created_at = models.DateTimeField()
    # Since when every attempt failed (null while the last one succeeded); 24 hours of that disables it.
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True)
    # The one job that sends this webhook's due deliveries, one at a time (webhooks.turns); null while none
    # is due.
    send_job = models.UUIDField(null=True, blank=True, editable=False)

    class Meta:
        indexes = [models.Index(fields=["token", "id"], name="webhook_token_idx")]

    def __str__(self):
        return f"wh_{self.pk} {self.url}"


class Topic(models.Model):
    """One topic a webhook follows: `inbox`, `th_<n>` for a thread's events, or `room:rm_<n>` for the events
    of the threads in a room (§20)."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="topics")
    name = models.CharField(max_length=32)

    class Meta:
        ordering = ["id"]  # as the webhook's creator listed them
        constraints = [models.UniqueConstraint(fields=["webhook", "name"], name="webhook_topic_unique")]
        indexes = [models.Index(fields=["name"], name="webhook_topic_name_idx")]

    def __str__(self):
        return self.name


class CreationAttempt(models.Model):
    """A token's request to create a webhook, whatever came of it: at most `webhook_creates_per_minute` of them
    a minute (webhooks.services)."""

    token = models.ForeignKey(Token, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["token", "at"], name="webhook_attempt_token_idx")]


class Delivery(models.Model):
    class Type(models.TextChoices):
        INBOX = "inbox"
        EVENT = "event"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    # Standard Webhooks' `webhook-id`: the same on every attempt, so a receiver can drop a repeat.
    stable_id = models.CharField("webhook-id", max_length=40, unique=True, editable=False)
    type = models.CharField(max_length=8, choices=Type.choices)
    thread_id = models.BigIntegerField()
    event_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    first_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status = models.CharField(max_length=200, blank=True)  # "200", "500", "timeout", ...
    delivered_at = models.DateTimeField(null=True, blank=True)
    # Ended without delivery: the token may no longer read it, or 24 hours of failures disabled the webhook.
    dropped_at = models.DateTimeField(null=True, blank=True)
    dropped_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=["webhook", "id"], name="delivery_webhook_idx"),
                   models.Index(fields=["webhook", "next_attempt_at"], name="delivery_due_idx")]
        verbose_name_plural = "deliveries"

    def __str__(self):
        return self.stable_id
