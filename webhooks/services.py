"""Every write of webhooks (§17): a token creates and deletes its own; a moderator re-enables a disabled one
in the console. The deliveries' own writes are webhooks.delivery."""
import base64
import logging
import math
import secrets
from datetime import timedelta

from django.db import transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone

from forum.limits import limit
from forum.models import Right, Token
from forum.access import access_thread, require_right, room_threads_q
from forum.services import count_write
from parley_site.errors import InvalidBody, LimitExceeded, RateLimited, Unavailable
from parley_site.sealing import seal
from webhooks.addresses import ResolversBusy
from webhooks.models import CreationAttempt, Topic, Webhook
from webhooks.selectors import INBOX, ROOM_TOPIC, described, owned_webhook, owner_token
from webhooks.targets import BadTarget, loggable, parsed, target_of

logger = logging.getLogger("parley.webhooks")
LIMIT = "webhooks_per_token_max"
CREATES_LIMIT = "webhook_creates_per_minute"
WINDOW = timedelta(seconds=60)


def new_secret():
    """A Standard Webhooks secret: `whsec_` and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def webhook_create(actor, url, topics):
    """Create a webhook of the caller's token on `url` for `topics` (`inbox`, `th_<n>`, `room:rm_<n>`). Needs `read`; locks
    the token row, so that two requests cannot both take the last place. Returns (webhook, secret): the
    secret is shown this once. Refuses, in §13's order: token_invalid (a human session), invalid_body (the
    url's form, a repeated topic), rate_limited (webhook_creates_per_minute, before the host is resolved),
    invalid_body (the url's host), unavailable (this process's resolvers all busy), token_right_missing,
    not_found (a topic's thread, or room), limit_exceeded (webhooks_per_token_max), rate_limited (writes_per_minute)."""
    token = owner_token(actor)
    try:
        parsed(url)
    except BadTarget as exc:
        raise InvalidBody(str(exc), field="url") from None
    for index, topic in enumerate(topics):
        if topic in topics[:index]:
            raise InvalidBody(f"topic {topic} is named twice", field=f"topics[{index}]")
    check_creation_rate(token)
    try:
        target_of(url)  # may wait on a resolver: RESOLVE_SECONDS at most, on threads of its own
    except BadTarget as exc:
        raise InvalidBody(str(exc), field="url") from None
    except ResolversBusy as exc:
        raise Unavailable(f"the url's host cannot be resolved now: {exc}; retry later") from None
    require_right(actor, Right.READ)
    for topic in topics:
        if topic.startswith(ROOM_TOPIC):
            room_threads_q(actor, topic.removeprefix(ROOM_TOPIC))  # §20: an invisible room is not_found
        elif topic != INBOX:
            access_thread(actor, int(topic.removeprefix("th_")), right=Right.READ)
    secret = new_secret()
    with transaction.atomic():
        Token.objects.select_for_update().filter(pk=token.pk).first()
        if Webhook.objects.filter(token=token).count() >= limit(LIMIT):
            raise LimitExceeded(LIMIT, limit(LIMIT))
        count_write(actor)
        webhook = Webhook.objects.create(token=token, url=url, sealed_secret=seal(secret.encode()),
                                         created_at=timezone.now())
        Topic.objects.bulk_create(Topic(webhook=webhook, name=topic) for topic in topics)
    logger.info("%s created webhook wh_%s on %s", actor.identity, webhook.pk, loggable(url))
    return webhook, secret


@transaction.atomic
def webhook_creation_attempted(actor):
    """Count a request to create a webhook, whatever comes of it, against its token's
    `webhook_creates_per_minute`: in a transaction of its own, before the creation's (forum.operations
    runs it as the operation's `admit`), so that a refused creation, which rolls back, still counts. Each
    may make the server wait on a resolver (webhooks.addresses), which a refusal does not undo."""
    if actor.token is None:
        return
    now = timezone.now()
    CreationAttempt.objects.filter(token=actor.token, at__lte=now - WINDOW).delete()
    CreationAttempt.objects.create(token=actor.token, at=now)


def check_creation_rate(token):
    """rate_limited when the token made more than `webhook_creates_per_minute` creation requests in the last
    minute, this one included (webhook_creation_attempted counted it)."""
    now, allowed = timezone.now(), limit(CREATES_LIMIT)
    recent = list(CreationAttempt.objects.filter(token=token, at__gt=now - WINDOW).order_by("-at").values_list(
        "at", flat=True)[:allowed + 1])
    if len(recent) > allowed:
        oldest_counted = recent[allowed - 1]
        raise RateLimited(retry_after=max(1, math.ceil((oldest_counted + WINDOW - now).total_seconds())),
                          limit=CREATES_LIMIT)


@transaction.atomic
def webhook_delete(actor, webhook_id):
    """Delete one of the caller's webhooks and its queued deliveries. Needs `read`; locks the webhook.
    Returns the webhook as it was, its topics read before they went. Refuses token_invalid,
    token_right_missing, not_found (another token's webhook too), rate_limited."""
    owner_token(actor)
    require_right(actor, Right.READ)
    webhook = owned_webhook(actor, webhook_id, lock=True)
    count_write(actor)
    prefetch_related_objects([webhook], "topics")
    Webhook.objects.filter(pk=webhook.pk).delete()
    logger.info("%s deleted webhook wh_%s", actor.identity, webhook.pk)
    return webhook


def webhooks_dropped(actor, token_id):
    """A rotation that drops the line's webhooks (forum.setups), as `actor`: deletes every webhook of the
    token and its queued deliveries inside the rotation's transaction, the webhooks locked before the token
    row as webhook_delete locks them. Logged. Returns them described."""
    webhooks = list(Webhook.objects.select_for_update().filter(token_id=token_id).order_by("pk"))
    Webhook.objects.filter(pk__in=[webhook.pk for webhook in webhooks]).delete()
    for webhook in webhooks:
        logger.info("%s deleted webhook wh_%s with the rotation of its token's secret", actor.identity, webhook.pk)
    return [described(webhook) for webhook in webhooks]


@transaction.atomic
def webhook_enable(actor, webhook_id):
    """A moderator in the console (`actor`) enables a disabled webhook again: its failures are forgotten,
    and the next write it follows is delivered. Logged."""
    webhook = Webhook.objects.select_for_update().get(pk=webhook_id)
    webhook.disabled_at, webhook.disabled_reason, webhook.failing_since = None, "", None
    webhook.save(update_fields=["disabled_at", "disabled_reason", "failing_since"])
    logger.info("%s enabled webhook wh_%s again", actor.identity, webhook_id)
    return webhook


@transaction.atomic
def webhook_remove(actor, webhook_id):
    """A moderator in the console (`actor`) deletes any token's webhook and its queued deliveries. Logged."""
    Webhook.objects.filter(pk=webhook_id).delete()
    logger.info("%s deleted webhook wh_%s", actor.identity, webhook_id)
