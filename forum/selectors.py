"""Reads, and the access checks every service goes through (access_thread, access_message)."""
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from forum import limits
from forum.actors import Actor
from forum.filters import ThreadFilter
from forum.models import TERMINAL_STATES, Message, Right, StateEvent, Thread, Token
from forum.policies import has_right
from parley_site.errors import NotFound, TokenInvalid, TokenRightMissing

LAST_USED_PRECISION = 60  # seconds; spares a write on every read


def token_authenticate(secret):
    """The actor behind a bearer token, or `token_invalid` (§3)."""
    if not secret:
        raise TokenInvalid()
    token = whole_row(Token, "secret_hash = %s AND revoked_at IS NULL", [Token.hash_secret(secret)])
    if token is None:
        raise TokenInvalid()
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > LAST_USED_PRECISION:
        Token.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return Actor.for_token(token)


def whole_row(model, condition, params, *, lock=False):
    """The one row of `model` that a hand-written SQL condition picks, or None; lock=True: FOR UPDATE.

    For the reads that every request or write makes (a token by its secret, a thread by its id): building
    such a query costs the ORM more CPU than the database spends running it (docs/performance.md)."""
    lock_clause = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    rows = model.objects.raw(f"SELECT * FROM {model._meta.db_table} WHERE {condition}{lock_clause}", params)
    return next(iter(rows), None)


def require_right(actor, right):
    if not has_right(actor, right):
        raise TokenRightMissing(right)


def access_thread(actor, thread_id, *, lock=False):
    """The thread, or `not_found`. With lock=True the row stays locked until the transaction ends, which
    serialises every write to one thread (§9)."""
    thread = whole_row(Thread, "id = %s", [thread_id], lock=lock)
    if thread is None:
        raise NotFound("thread", f"th_{thread_id}")
    return thread


def access_message(actor, message_id):
    require_right(actor, Right.READ)
    message = Message.objects.filter(pk=message_id).first()
    if message is None:
        raise NotFound("message", f"msg_{message_id}")
    return message


def thread_get(actor, thread_id):
    require_right(actor, Right.READ)
    return access_thread(actor, thread_id)


def thread_messages(thread):
    """All messages of a thread in creation order: one query whatever the thread's size."""
    return list(Message.objects.filter(thread=thread).order_by("id"))


def page(queryset, key, after, limit):
    """A cursor page: items whose `key` is past `after`, ascending, at most `limit`."""
    return list(queryset.filter(**{f"{key}__gt": after}).order_by(key)[:limit])


def thread_list(actor, *, filters, after, limit):
    require_right(actor, Right.READ)
    data = {name: str(value).lower() if isinstance(value, bool) else value for name, value in filters.items()}
    return page(ThreadFilter(data, queryset=Thread.objects.all()).qs, "id", after, limit)


def event_list(actor, *, thread_id, after, limit):
    require_right(actor, Right.READ)
    queryset = StateEvent.objects.all()
    if thread_id is not None:
        queryset = queryset.filter(thread=access_thread(actor, thread_id))
    return page(queryset, "id", after, limit)


def inbox(actor, *, awaiting, extension, after, limit):
    """§11: threads awaiting the caller, in the order they started awaiting. A question asked by the
    caller's own (identity, extension) stays hidden."""
    return page(inbox_threads(actor, awaiting, extension), "awaiting_seq", after, limit)


def inbox_newest(actor, *, awaiting, extension, limit):
    """The inbox's newest page: the `limit` threads that most recently started awaiting the caller, in the
    order they did (what the MCP resource parley://inbox shows, §2)."""
    return list(reversed(inbox_threads(actor, awaiting, extension).order_by("-awaiting_seq")[:limit]))


def inbox_threads(actor, awaiting, extension):
    require_right(actor, Right.READ)
    queryset = Thread.objects.filter(awaiting_act=awaiting)
    if awaiting == "confirmation":
        require_right(actor, Right.LOCK)
    elif awaiting == "answer":
        queryset = queryset.filter(Q(awaiting_from="anyone") | Q(awaiting_from=actor.identity)).exclude(
            awaiting_by_identity=actor.identity, awaiting_by_extension=extension)
    else:
        queryset = queryset.filter(awaiting_from=actor.identity)
    return queryset


def in_moderation_queue():
    """The console's moderation queue, as a condition on threads: proposals awaiting confirmation (§8), and
    full threads until a confirmed close or side state settles them: they await nothing, so they sit in no
    inbox, and only a moderator can still settle them (§14.1)."""
    full = Q(message_count__gte=limits.limit("thread_max_messages")) & ~Q(state__in=TERMINAL_STATES)
    return Q(state_confirmed_at__isnull=True) | full


def restorable_event(thread):
    """The mark that set the thread's last confirmed state, which `dismiss` returns to (§8)."""
    return (StateEvent.objects.filter(thread=thread, claim_number__isnull=True, confirmed_at__isnull=False)
            .exclude(label__in=["confirm", "dismiss"]).order_by("-id").first())

