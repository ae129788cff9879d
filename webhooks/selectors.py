"""Every read of webhooks: a token's own, and the ones a committed write concerns. A selector never writes."""
from django.utils import timezone

from forum.access import reaches_inbox, visible_thread_ids, visible_threads
from forum.actors import Actor
from forum.models import ANYONE, AwaitingAct, Right
from forum.policies import has_right, inbox_senders
from forum.selectors import unexpired_tokens
from parley_site.errors import NotFound, TokenInvalid
from webhooks.models import Webhook
from webhooks.targets import loggable

INBOX = "inbox"
ROOM_TOPIC = "room:"  # room:rm_<n> (§20)


def owner_token(actor):
    """Webhooks belong to a token (§17: a token's configuration); a human session has none to hold them."""
    if actor.token is None:
        raise TokenInvalid("webhooks belong to a token: call with Authorization: Bearer <token>")
    return actor.token


def webhook_list(actor):
    return list(Webhook.objects.filter(token=owner_token(actor)).prefetch_related("topics").order_by("id"))


def described(webhook):
    """A webhook as an operator recognises it, its url without the query that may hold the receiver's
    credentials."""
    return f"wh_{webhook.pk} {loggable(webhook.url)}"


def webhooks_described(token_id):
    """The token's webhooks, described (forum.setups: what a rotation tells of)."""
    return [described(webhook) for webhook in Webhook.objects.filter(token_id=token_id).order_by("pk")]


def owned_webhook(actor, webhook_id, *, lock=False):
    """The caller's own webhook, or not_found: another token's webhook does not exist for it."""
    webhooks = Webhook.objects.filter(pk=webhook_id, token=owner_token(actor))
    webhook = (webhooks.select_for_update() if lock else webhooks).first()
    if webhook is None:
        raise NotFound("webhook", f"wh_{webhook_id}")
    return webhook


def active_webhooks():
    """Enabled webhooks whose token is valid now and may read (§17: it delivers only while so)."""
    tokens = unexpired_tokens(timezone.now()).filter(can_read=True)
    return Webhook.objects.filter(disabled_at__isnull=True, token__in=tokens).select_related("token")


def followers(topic, written_at):
    """Active webhooks on `topic` that existed when the write was made: a webhook announces what comes after
    it, even when the write's fan-out runs later."""
    return active_webhooks().filter(topics__name=topic, created_at__lte=written_at)


def sees(webhook, thread_id):
    """Whether the webhook's token may see the thread (forum.access, in SQL for that token)."""
    return thread_id in visible_thread_ids(Actor.for_token(webhook.token), {thread_id})


def thread_followers(thread_id, written_at):
    return [webhook for webhook in followers(f"th_{thread_id}", written_at) if sees(webhook, thread_id)]


def room_followers(thread_id, room, written_at, *, left=False):
    """The webhooks on `room:rm_<room>` whose token may see the thread (forum.access, in SQL for that
    token) with the thread now in that room (§20: a moved-out thread stops); with `left`, the event is the
    move that took the thread out of `room`, which its followers are told of if they may still see it."""
    found = []
    for webhook in followers(f"{ROOM_TOPIC}rm_{room}", written_at):
        threads = visible_threads(Actor.for_token(webhook.token)).filter(pk=thread_id)
        if (threads if left else threads.filter(room_number=room)).exists():
            found.append(webhook)
    return found


def inbox_followers(thread_id, act, sender, asker, written_at):
    """The webhooks on `inbox` whose token's inbox the thread entered, now awaiting `act` from `sender`,
    asked by `asker` (identity, extension): by the inbox's own rules (forum.selectors.inbox_threads), for
    the line's unnamed extension, which a webhook follows."""
    found = []
    for webhook in followers(INBOX, written_at):
        actor = Actor.for_token(webhook.token)
        if not sees(webhook, thread_id) or sender not in inbox_senders(actor.identity, act):
            continue
        if act == AwaitingAct.CONFIRMATION and not has_right(actor, Right.LOCK):
            continue
        if act == AwaitingAct.ANSWER and asker == (actor.identity, ""):
            continue
        if sender == ANYONE and not reaches_inbox(actor, thread_id):
            continue
        found.append(webhook)
    return found


def webhook_may_deliver(webhook_id):
    """Before each attempt (§17): the webhook still enabled, its token valid and allowed to read."""
    return active_webhooks().filter(pk=webhook_id).exists()
