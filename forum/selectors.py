"""Every read. What a caller may see of threads, messages and events, and the access checks every service
goes through, are forum.access: the reads here go through it. A selector never writes."""
from importlib import import_module

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.db.models import Case, F, OuterRef, Q, Subquery, When
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from forum import commit_order, credentials, limits
from forum.access import (access_thread, escalated_q, events_of, inbox_reach, messages_of, powers_q, require_right,
                          visible_events, visible_messages, visible_threads, within)
from forum.actors import Actor
from forum.filters import ThreadFilter
from forum.models import ANYONE, TERMINAL_STATES, AwaitingAct, Right, StateEvent, Thread, Token
from forum.policies import inbox_senders
from forum.rows import one_row
from parley_site.errors import InvalidBody, NotFound, TokenInvalid, TokenRightMissing

# A thread's place in the inbox: the transaction that set its `awaiting_seq`, then it (forum.commit_order).
INBOX_ORDER = ("awaiting_xact", "awaiting_seq")
# The columns an actor is built from: what a re-check of a token reads (current_actors).
ACTOR_FIELDS = ("id", "identity", "label", "can_read", "can_write", "can_lock", "can_verify", "expires_at",
                "secret_hash", "previous_secret_hash", "previous_secret_ends_at", "last_write_xid")


def token_by_secret(secret):
    """The unrevoked, unexpired token a bearer secret names, or `token_invalid` (§3). The secret is the
    token's current one, or its previous one within the grace period of a rotation."""
    if not secret:
        raise TokenInvalid()
    digest, now = Token.hash_secret(secret), timezone.now()
    token = one_row(Token, secret_hash=digest, null=["revoked_at"])
    if token is None:  # a second query only for a secret that is not current: rare, and refused mostly
        token = one_row(Token, previous_secret_hash=digest, null=["revoked_at"])
    if token is None or not secret_works(token, digest, now) or not token_is_unexpired(token, now):
        raise TokenInvalid()
    return token


def secret_works(token, digest, now):
    """Does the secret hashed `digest` still open `token` (unrevoked and unexpired aside): it is the
    current secret, or the previous one within its rotation's grace."""
    if digest == token.secret_hash:
        return True
    return digest == token.previous_secret_hash and token.previous_secret_ends_at > now


def token_is_unexpired(token, now):
    """Expiry is checked as time passes, not written: no job has to mark a token expired."""
    return token.expires_at is None or token.expires_at > now


def unexpired_tokens(now):
    return Token.objects.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now), revoked_at__isnull=True)


def actor_key(actor):
    """What the database knows a caller by: the credential it came with when not its line's own secret (an
    OAuth grant, forum.credentials), its token, or for a human its username."""
    if actor.credential is not None:
        return actor.credential
    if actor.token is not None:
        return ("token", actor.token.pk)
    return ("human", actor.label)


def current_actors(keys):
    """actor_key -> the caller as the database has it now, or None when it may no longer read at all: the
    credential it came with no longer works (a line's secret rotated away or past its grace, a staff
    session logged out or outlived by a new password, forum.credentials), or its token is revoked or
    expired, or its user no longer active staff, whom authentication would refuse. One query for all the
    tokens, one for the humans (rare: a moderator's browser) and each of their sessions, and one per other
    kind of credential asked about."""
    found: dict = {}
    for name, kind in credentials.KINDS.items():
        ids = [ref for key_kind, ref in keys if key_kind == name]
        if ids:
            found.update(((name, ref), actor) for ref, actor in kind.current(ids).items())
    found.update(_token_actors(keys))
    found.update(_human_actors(keys))
    return {key: found.get(key) for key in keys}


def _token_actors(keys):
    """The tokens' part of current_actors: by token (an actor no request authenticated) or by the secret
    it came with, in one query."""
    token_ids = [ref for kind, ref in keys if kind == "token"]
    digests = {ref for kind, ref in keys if kind == credentials.LINE_SECRET}
    if not (token_ids or digests):
        return {}
    now, found = timezone.now(), {}
    tokens = unexpired_tokens(now).filter(
        Q(pk__in=token_ids) | Q(secret_hash__in=digests) | Q(previous_secret_hash__in=digests)
    ).only(*ACTOR_FIELDS)
    for token in tokens:
        found[("token", token.pk)] = Actor.for_token(token)
        for digest in {token.secret_hash, token.previous_secret_hash} & digests:
            if secret_works(token, digest, now):
                found[(credentials.LINE_SECRET, digest)] = Actor.for_token(token, digest)
    return found


def _human_actors(keys):
    """The humans' part of current_actors: by username (an actor no request authenticated) or by the
    session it came with; one query for the users, one per session."""
    signed_in = _signed_in([ref for kind, ref in keys if kind == credentials.STAFF_SESSION])
    usernames = [ref for kind, ref in keys if kind == "human"]
    if not (usernames or signed_in):
        return {}
    user_model, found, by_pk = get_user_model(), {}, {}
    users = {user_id for user_id, _ in signed_in.values()}
    staff = user_model.objects.filter(Q(**{f"{user_model.USERNAME_FIELD}__in": usernames}) | Q(pk__in=users),
                                      is_active=True, is_staff=True)
    for user in staff:
        found[("human", user.get_username())] = Actor.for_user(user)
        by_pk[user.pk] = user
    for key, (user_id, auth_hash) in signed_in.items():
        signed_in_user = by_pk.get(user_id)
        if signed_in_user is not None and _session_hash_matches(signed_in_user, auth_hash):
            found[(credentials.STAFF_SESSION, key)] = Actor.for_user(signed_in_user, key)
    return found


def _signed_in(session_keys):
    """session key -> (the id of the user signed in through it, the auth hash it holds), for each session
    that is unexpired and signed in through a backend still configured; read through the site's session
    engine, never written."""
    engine, user_model, signed_in = import_module(settings.SESSION_ENGINE), get_user_model(), {}
    for key in session_keys:
        data = engine.SessionStore(key).load()
        if SESSION_KEY in data and data.get(BACKEND_SESSION_KEY) in settings.AUTHENTICATION_BACKENDS:
            signed_in[key] = (user_model._meta.pk.to_python(data[SESSION_KEY]), data.get(HASH_SESSION_KEY))
    return signed_in


def _session_hash_matches(user, auth_hash):
    """As django.contrib.auth.get_user decides it: the session still holds the hash of the user's password
    (under the current SECRET_KEY or a fallback), so a new password, and with it every other session's
    end, ends this one too."""
    if not auth_hash:
        return False
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return any(constant_time_compare(auth_hash, known) for known in hashes)


def thread_get(actor, thread_id):
    return access_thread(actor, thread_id, right=Right.READ)


def thread_messages(actor, thread):
    """All messages of a thread `actor` accessed, in creation order: one query whatever the thread's size."""
    return list(messages_of(thread).order_by("id"))


def thread_history(actor, thread):
    """Every state event of a thread `actor` accessed (its own and its claims'), oldest first."""
    return list(events_of(thread).order_by("id"))


def thread_messages_after(actor, thread, message_id, limit):
    """§17: the messages of `thread` created after `message_id`, in creation order, at most `limit`. Ids
    follow creation order within a thread: its writes are serialised on its row (§9). Refuses not_found for
    an unknown message, invalid_body (`after`) for one of another thread."""
    messages = visible_messages(actor)
    anchor_thread = messages.filter(pk=message_id).values_list("thread_id", flat=True).first()
    if anchor_thread is None:
        raise NotFound("message", f"msg_{message_id}")
    if anchor_thread != thread.pk:
        raise InvalidBody(f"msg_{message_id} does not belong to th_{thread.pk}", field="after")
    return list(messages_of(thread).filter(pk__gt=message_id).order_by("id")[:limit])


def page(queryset, key, after, limit):
    """A cursor page by one key: items whose `key` is past `after`, ascending, at most `limit` (the lists
    that are not in commit order, forum.commit_order: rooms)."""
    return list(queryset.filter(**{f"{key}__gt": after}).order_by(key)[:limit])


def thread_list(actor, *, filters, after, limit, where=None):
    """The threads `actor` may see that `filters` (§11) and `where` (a profile's list arguments) admit."""
    require_right(actor, Right.READ)
    data = {name: str(value).lower() if isinstance(value, bool) else value for name, value in filters.items()}
    return commit_order.page(ThreadFilter(data, queryset=within(visible_threads(actor), where)).qs, after, limit)


def event_list(actor, *, thread_id, after, limit, where=None):
    require_right(actor, Right.READ)
    if thread_id is None:
        queryset = visible_events(actor)
    else:
        queryset = events_of(access_thread(actor, thread_id, right=Right.READ))
    return commit_order.page(within(queryset, where), after, limit)


def inbox(actor, *, awaiting, extension, after, limit, where=None):
    """§11: threads awaiting the caller, in the order they started awaiting. A question asked by the
    caller's own (identity, extension) stays hidden."""
    return commit_order.page(inbox_threads(actor, awaiting, extension, where), after, limit, *INBOX_ORDER)


def inbox_newest(actor, *, awaiting, extension, limit, where=None):
    """The inbox's newest page: the `limit` threads that most recently started awaiting the caller, in the
    order they did (what the MCP resource parley://inbox shows, §2)."""
    return commit_order.newest(inbox_threads(actor, awaiting, extension, where), limit, *INBOX_ORDER)


def inbox_held_back(actor, awaiting=AwaitingAct.ANSWER, extension=""):
    """Whether threads that entered the caller's inbox are still held back below the horizon
    (forum.commit_order): the newest page does not show them yet."""
    return commit_order.held_back(inbox_threads(actor, awaiting, extension), INBOX_ORDER[0])


def inbox_threads(actor, awaiting, extension, where=None):
    require_right(actor, Right.READ)
    awaited = Q(awaiting_act=awaiting, awaiting_from__in=inbox_senders(actor.identity, awaiting))
    if awaiting == AwaitingAct.CONFIRMATION:
        escalated = escalated_q()
        awaited = (awaited | escalated if escalated is not None else awaited) & moderated_threads(actor)
    queryset = within(visible_threads(actor).filter(awaited), where)
    if awaiting == AwaitingAct.ANSWER:
        queryset = queryset.exclude(awaiting_by_identity=actor.identity, awaiting_by_extension=extension)
        reach = inbox_reach(actor)
        if reach is not None:  # a question to anyone reaches whom a profile says (rooms: members, §20)
            queryset = queryset.filter(~Q(awaiting_from=ANYONE) | reach)
    return queryset


def moderated_threads(actor):
    """The threads whose moderation queue `actor` reads (§14.1): every thread for lock holders and the human,
    the threads of the rooms it moderates for a room moderator (§20); token_right_missing (`lock`) for a
    caller who moderates none."""
    if Right.LOCK in actor.rights:
        return Q()
    moderated = powers_q(actor).get(Right.LOCK)
    if moderated is None or not visible_threads(actor).filter(moderated).exists():
        raise TokenRightMissing(Right.LOCK)
    return moderated


def threads_by_activity(actor):
    """The threads `actor` may see, the most recently active first: the staff reading pages' list."""
    return visible_threads(actor).order_by("-updated_at", "-id")


def moderation_queue_size():
    return Thread.objects.filter(in_moderation_queue()).count()


def in_moderation_queue():
    """The console's moderation queue, as a condition on threads: proposals awaiting confirmation (§8), and
    full threads until a confirmed close or side state ends them: they await nothing, so they sit in no
    inbox, and only a moderator can still end them (§14.1)."""
    full = Q(message_count__gte=limits.limit("thread_max_messages")) & ~Q(state__in=TERMINAL_STATES)
    escalated = escalated_q()  # a profile's (rooms: a move awaited from a line that can no longer see it)
    return Q(state_confirmed_at__isnull=True) | full | (escalated if escalated is not None else Q(pk__in=[]))


def moderation_queue_entered_after(moment):
    """The threads in the moderation queue that entered it after `moment` (None: all of them), in the
    order they entered: a pending thread when its proposal was made, a full one with its last message."""
    proposed_at = Subquery(pending_proposal(OuterRef("pk")).values("at"))
    entered = Case(When(state_confirmed_at__isnull=True, then=proposed_at), default=F("updated_at"))
    queue = Thread.objects.filter(in_moderation_queue()).annotate(entered_at=entered)
    if moment is not None:
        queue = queue.filter(entered_at__gt=moment)
    return queue.order_by("entered_at", "pk")


def event_head():
    """The newest state event's place (forum.commit_order): where a list of events that starts now begins."""
    return commit_order.head(StateEvent.objects.all())


def inbox_head():
    """The place of the thread that started awaiting last: where an inbox that starts now begins."""
    return commit_order.head(Thread.objects.all(), *INBOX_ORDER)


def state_events(thread):
    """The events of the thread's own state (not its claims', nor a redaction, which keeps the state: §17),
    newest first. `thread` may be an OuterRef, for a subquery per thread."""
    return (StateEvent.objects.filter(thread=thread, claim_number__isnull=True).exclude(label="redact")
            .order_by("-id"))


def pending_proposal(thread):
    """The newest event of the thread's state, as a one-row queryset: on a pending thread, the proposal
    that confirm stamps and whose proposer the console shows (§8)."""
    return state_events(thread)[:1]


def restorable_event(thread):
    """The mark that set the thread's last confirmed state, which `dismiss` returns to (§8)."""
    return (state_events(thread).filter(confirmed_at__isnull=False).exclude(label__in=["confirm", "dismiss"])
            .first())
