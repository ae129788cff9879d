"""Every write of the forum's threads, and every permission check on the way to it. REST, MCP and the
console call these and nothing else; each runs in one transaction with the thread row locked (§9). The
writes of tokens are forum.tokens."""
import math

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from forum import erasure, policies
from forum.access import access_message, access_thread, powers_q, require_right, visible_threads
from forum.acts import AUTHORITY_MARKS, REPLY_KINDS
from forum.announce import Announcement, announce
from forum.envelope import CleanEnvelope, title_from
from forum.limits import limit
from forum.models import ANYONE, DEFAULT_ROOM_NUMBER, AwaitingAct, Message, Right, State, StateEvent, Thread, Token
from forum.own_writes import CurrentTransactionId
from forum.profiles import guard_act, place_thread, profile_for_kind, rights_for_kind, write_allowance
from forum.selectors import pending_proposal, restorable_event
from forum.sequences import NextAwaitingSeq
from parley_site.errors import (InvalidBody, InvalidTransition, LimitExceeded, LoopGuard,
                                NothingToConfirm, RateLimited, SelfReply, ThreadAuthorityMissing,
                                NotFound, ThreadLocked, TokenRightMissing)

THREAD_WRITE_FIELDS = [
    "state", "state_origin", "state_confirmed_at", "state_confirmed_by", "updated_at", "message_count",
    "last_message", "awaiting_act", "awaiting_from", "awaiting_since", "awaiting_by_identity",
    "awaiting_by_extension", "awaiting_seq", "loop_last", "loop_prev", "loop_run",
]


def message_post(actor, envelope):
    """Post a cleaned envelope (a forum.envelope.CleanEnvelope: clean_envelope, check_envelope) as `actor`,
    who needs `write`; anything else is a programming error (TypeError), never posted unchecked.

    Opens a thread for an `ask` without `thread`; otherwise locks the thread, applies §5–§9 and §14, stores
    the message and, when the state moves, one state event, and announces the post (forum.announce).
    Returns (message, thread, profile result).
    Refuses, in §13's order: token_right_missing, not_found (the thread, the parent, a profile's objects),
    invalid_body (a parent or a profile's object of another thread), thread_locked, thread_authority_missing,
    self_reply, invalid_transition, then a profile's own checks (forum.profiles), limit_exceeded, loop_guard,
    rate_limited."""
    if not isinstance(envelope, CleanEnvelope):
        raise TypeError(f"message_post takes a CleanEnvelope, not {type(envelope).__name__}")
    require_right(actor, Right.WRITE)
    if "thread" not in envelope or not powers_q(actor):
        # A right a profile kind needs (dialectic: `verify`) is checked here, in §13's place, unless a
        # profile may give it over the thread (rooms: a room's verifiers, §20): then once the thread is found.
        for right in rights_for_kind(envelope["kind"]):
            require_right(actor, right)
    with transaction.atomic():
        if "thread" not in envelope:
            return _thread_open(actor, envelope)
        return _post_to_thread(actor, envelope)


def _thread_open(actor, envelope):
    # Private: message_post is the one door, holding the transaction and the `write` check.
    room_number = place_thread(actor, envelope, DEFAULT_ROOM_NUMBER)  # §20: not_found, room_archived, ...
    now = timezone.now()
    _admit_write(actor, now)
    thread = Thread.objects.create(
        room_number=room_number,
        title=title_from(envelope["body"]), state=State.OPEN, state_origin=actor.origin,
        state_confirmed_at=now, state_confirmed_by=actor.identity,  # §8: `open` is confirmed at creation
        creator_identity=actor.identity, creator_extension=envelope["extension"],
        created_at=now, updated_at=now, message_count=1,
        awaiting_act=AwaitingAct.ANSWER, awaiting_from=ANYONE, awaiting_by_identity=actor.identity,
        awaiting_by_extension=envelope["extension"], awaiting_seq=NextAwaitingSeq(),
    )
    message = _store_message(actor, thread, envelope, None, now, policies.awaiting(AwaitingAct.ANSWER, ANYONE))
    thread.first_message = thread.last_message = thread.awaiting_since = message
    thread.save(update_fields=["first_message", "last_message", "awaiting_since"])
    event = _record_event(thread, message, None, State.OPEN, "ask", actor, now, confirmed=True)
    announce(Announcement("post", thread, message, (event,), _awaiting_now(thread), now))
    return message, thread, None


def _post_to_thread(actor, envelope):
    kind, extension = envelope["kind"], envelope["extension"]
    thread = access_thread(actor, envelope["thread"], right=Right.WRITE, lock=True)
    actor = actor.holding(thread.powers)  # §20: a room moderator holds lock's powers over its rooms' threads
    for right in rights_for_kind(kind):
        require_right(actor, right)
    parent = _parent_of(actor, thread, envelope.get("parent"))
    profile = profile_for_kind(kind)
    resolved = profile.resolve(actor, thread, envelope) if profile and profile.resolve else None
    guard_act(actor, thread, kind)
    if policies.is_shut_out_by_lock(actor, thread, kind):
        raise ThreadLocked()
    if kind in AUTHORITY_MARKS and not policies.can_mark(actor, thread, kind):
        raise ThreadAuthorityMissing()
    if kind in REPLY_KINDS and (parent.author_identity, parent.author_extension) == (actor.identity, extension):
        raise SelfReply(message_id=f"msg_{parent.pk}")
    try:
        new_state = policies.next_state(kind, thread.state, policies.can_moderate(actor))
    except policies.Illegal as refusal:
        raise InvalidTransition(str(refusal), state=thread.state, kind=kind) from None
    apply_profile = profile.prepare(actor, thread, envelope, resolved) if profile and profile.prepare else None
    speaker = policies.loop_key(actor.identity, extension)
    _check_limits(actor, thread, kind, parent.depth + 1, speaker, new_state)
    confirmed = policies.marks_are_confirmed(actor)
    left = _awaiting_left(kind, thread, new_state, confirmed, parent)

    now = timezone.now()
    state_changes = new_state is not policies.STATE_UNCHANGED
    _admit_write(actor, now)
    message = _store_message(actor, thread, envelope, parent, now, left or _current_awaiting(thread))

    old_state = thread.state
    if state_changes:
        _set_state(thread, new_state, actor, now, confirmed)
    if left is not None:
        _set_awaiting(thread, left["act"], left["from"], message, (actor.identity, extension))
    thread.loop_last, thread.loop_prev, thread.loop_run = policies.loop_after(thread, speaker, state_changes)
    thread.message_count += 1
    thread.last_message = message
    thread.updated_at = now
    thread.save(update_fields=THREAD_WRITE_FIELDS)
    events: tuple = ()
    if state_changes:
        events = (_record_event(thread, message, old_state, new_state, kind, actor, now, confirmed),)
    result, profile_events = apply_profile(message) if apply_profile else (None, ())
    entered = _awaiting_now(thread) if left is not None else None
    announce(Announcement("post", thread, message, (*events, *profile_events), entered, now))
    return message, thread, result


def _check_limits(actor, thread, kind, depth, speaker, new_state):
    """§14's 409 refusals in §13's order: max_depth, thread_max_messages, loop_guard. A full thread still
    takes the confirmed marks that end it (§14.1), or any writer could make it unclosable."""
    if depth > limit("max_depth"):
        raise LimitExceeded("max_depth", limit("max_depth"))
    cap = limit("thread_max_messages")
    if policies.is_full(thread.message_count, cap) and not policies.may_post_to_full_thread(actor, kind):
        raise LimitExceeded("thread_max_messages", cap)
    if new_state is policies.STATE_UNCHANGED and policies.loop_guard_trips(thread, speaker, limit("loop_exchange_max")):
        raise LoopGuard(limit="loop_exchange_max")


def _awaiting_left(kind, thread, new_state, confirmed, parent):
    """The `awaiting` this message sets (§6), or None when it stays. From the message that fills the
    thread on, it awaits nothing, so it leaves every inbox for the console's moderation queue (§14.1)."""
    if policies.is_full(thread.message_count + 1, limit("thread_max_messages")):
        return policies.awaiting(None, None)
    next_awaiting = policies.awaiting_after_message(kind, thread, new_state, confirmed, parent.author_identity)
    return None if next_awaiting is policies.AWAITING_UNCHANGED else policies.awaiting(*next_awaiting)


def _parent_of(actor, thread, parent_id):
    if parent_id is None:
        # The default parent is the opening message, whose author is the creator: no query needed.
        return Message(pk=thread.first_message_id, thread_id=thread.pk, author_identity=thread.creator_identity,
                       author_extension=thread.creator_extension, depth=0)
    parent = access_message(actor, parent_id, right=Right.WRITE)
    if parent.thread_id != thread.pk:
        raise InvalidBody(f"msg_{parent_id} does not belong to th_{thread.pk}", field="parent")
    return parent


@transaction.atomic
def state_confirm(actor, thread_id):
    """Confirm the thread's pending proposal (§8). Needs `lock` (or a human); locks the thread; stamps the
    proposal's event as confirmed and records a `confirm` event. Refuses token_right_missing, not_found,
    nothing_to_confirm, rate_limited."""
    actor, thread, now = _take_proposal(actor, thread_id, "confirm")
    proposal = pending_proposal(thread).values("id")
    StateEvent.objects.filter(pk__in=proposal).update(confirmed_at=now, confirmed_by=actor.identity)
    thread.state_confirmed_at, thread.state_confirmed_by = now, actor.identity
    event = _end_proposal(thread, thread.state, "confirm", actor, now)
    announce(Announcement("confirm", thread, None, (event,), _awaiting_now(thread), now))
    return thread


@transaction.atomic
def state_dismiss(actor, thread_id, reason=""):
    """Drop the pending proposal: the thread returns to its last confirmed state (§8). Needs `lock` (or a
    human); locks the thread; records a `dismiss` event whose note is `reason` (§17). Refuses
    token_right_missing, not_found, nothing_to_confirm, rate_limited."""
    actor, thread, now = _take_proposal(actor, thread_id, "dismiss")
    restored = restorable_event(thread)
    proposed = thread.state
    thread.state, thread.state_origin = restored.to_state, restored.origin
    thread.state_confirmed_at, thread.state_confirmed_by = restored.confirmed_at, restored.confirmed_by
    event = _end_proposal(thread, proposed, "dismiss", actor, now, note=reason)
    announce(Announcement("dismiss", thread, None, (event,), _awaiting_now(thread), now))
    return thread


@transaction.atomic
def message_redact(actor, message_id, reason=""):
    """Erase a message and every copy Parley keeps of its text (§17, forum.erasure). Needs `lock` (or a
    human); locks the message's thread, locked state or not; leaves the state and `awaiting` as they are and
    records a `redact` event (from and to the current state) whose note is `reason`; enqueues the vacuum of
    the tables it changed. Returns (message, thread). Refuses token_right_missing, not_found,
    invalid_transition (already redacted), rate_limited."""
    _require_moderation(actor)
    thread_id = access_message(actor, message_id, right=Right.READ).thread_id
    actor, thread = _moderated_thread(actor, thread_id, lambda: NotFound("message", f"msg_{message_id}"))
    # Read again under the thread's lock: redactions serialise.
    message = access_message(actor, message_id, right=Right.READ)
    if message.is_redacted:
        raise InvalidTransition(f"msg_{message_id} is already redacted", message_id=f"msg_{message_id}")
    tables = erasure.erase_message(message, thread)  # it refuses nothing, and locks its claim (lock order 3)
    now = timezone.now()
    _admit_write(actor, now)  # a refusal here rolls the erasure back with the rest
    message.redacted_at, message.redacted_by = now, actor.identity
    message.save(update_fields=["body", "provenance", "redacted_at", "redacted_by"])
    thread.updated_at = now
    thread.save(update_fields=["title", "updated_at"])
    event = _record_event(thread, message, thread.state, thread.state, "redact", actor, now, confirmed=True,
                          note=reason)
    erasure.reclaim_later(tables)
    announce(Announcement("redact", thread, message, (event,), None, now))
    return message, thread


def _require_moderation(actor):
    """§13: token_right_missing (`lock`) first for a caller who holds neither `lock` nor the moderation of
    any thread through a profile (rooms: a room moderator, §20); a query only for a caller without `lock`."""
    if Right.LOCK in actor.rights:
        return
    moderated = powers_q(actor).get(Right.LOCK)
    if moderated is None or not visible_threads(actor).filter(moderated).exists():
        raise TokenRightMissing(Right.LOCK)


def _moderated_thread(actor, thread_id, missing):
    """(the actor as it acts there, the thread locked) for an operation that always needs `lock` (§7), or
    moderation of the thread's room (§20). Refuses token_right_missing (`lock`) to a caller with neither,
    else not_found (`missing()`) for a thread it may not see."""
    if Right.LOCK in actor.rights:
        return actor, access_thread(actor, thread_id, right=Right.LOCK, lock=True)
    _require_moderation(actor)
    try:
        thread = access_thread(actor, thread_id, right=Right.READ, lock=True)
    except NotFound:
        raise missing() from None
    if Right.LOCK not in thread.powers:
        raise TokenRightMissing(Right.LOCK)
    return actor.holding(thread.powers), thread


def _take_proposal(actor, thread_id, label):
    """The locked thread whose pending proposal a lock holder, a moderator of its room or the human confirms
    or dismisses, and the actor as it acts there."""
    actor, thread = _moderated_thread(actor, thread_id, lambda: NotFound("thread", f"th_{thread_id}"))
    guard_act(actor, thread, label)
    if not thread.is_pending:
        raise NothingToConfirm(state=thread.state)
    now = timezone.now()
    _admit_write(actor, now)
    return actor, thread, now


def _end_proposal(thread, from_state, label, actor, now, note=""):
    """After confirm or dismiss the thread awaits what its confirmed state implies (§6), unless it is full."""
    act, who = policies.awaiting_for_confirmed(thread)
    if policies.is_full(thread.message_count, limit("thread_max_messages")):
        act, who = None, None  # §14.1: a full thread awaits nothing, whatever its state
    asker = (thread.creator_identity, thread.creator_extension) if act == AwaitingAct.ANSWER else ("", "")
    _set_awaiting(thread, act, who, thread.last_message, asker)
    thread.loop_last, thread.loop_prev, thread.loop_run = policies.loop_after(thread, "", True)
    thread.updated_at = now
    thread.save(update_fields=THREAD_WRITE_FIELDS)
    return _record_event(thread, None, from_state, thread.state, label, actor, now, confirmed=True, note=note)


def _awaiting_now(thread):
    """What a write announces of the move its thread awaits (forum.announce), or None when it awaits
    nothing (a full thread, a closed one)."""
    if thread.awaiting_act is None:
        return None
    return {"act": thread.awaiting_act, "from": thread.awaiting_from,
            "asker": [thread.awaiting_by_identity, thread.awaiting_by_extension]}


def _store_message(actor, thread, envelope, parent, now, awaiting_left):
    return Message.objects.create(
        thread=thread, parent_id=parent.pk if parent else None, depth=parent.depth + 1 if parent else 0,
        kind=envelope["kind"], body=envelope["body"], author_identity=actor.identity,
        author_extension=envelope["extension"], author_kind=actor.origin, author_label=actor.display_label,
        token=actor.token, provenance=envelope.get("provenance"), awaiting=awaiting_left, created_at=now,
    )


def _current_awaiting(thread):
    return policies.awaiting(thread.awaiting_act, thread.awaiting_from, thread.awaiting_since_id)


def _set_state(thread, state, actor, now, confirmed):
    thread.state, thread.state_origin = state, actor.origin
    thread.state_confirmed_at = now if confirmed else None
    thread.state_confirmed_by = actor.identity if confirmed else ""


def _set_awaiting(thread, act, who, since, asker):
    """Set the one open move (§6). A thread that starts awaiting something new moves to the end of the
    inbox order, so `since` cursors see it as new (§11)."""
    if (act, who, since.pk if since else None) != (thread.awaiting_act, thread.awaiting_from,
                                                  thread.awaiting_since_id):
        thread.awaiting_seq = NextAwaitingSeq()
    thread.awaiting_act, thread.awaiting_from, thread.awaiting_since = act, who, since
    thread.awaiting_by_identity, thread.awaiting_by_extension = asker


def _record_event(thread, message, from_state, to_state, label, actor, now, confirmed, note="", from_room=None):
    return StateEvent.objects.create(
        thread=thread, room_number=thread.room_number, from_room_number=from_room, message=message,
        from_state=from_state, to_state=to_state, label=label, origin=actor.origin, actor=actor.identity, at=now,
        confirmed_at=now if confirmed else None, confirmed_by=actor.identity if confirmed else "", note=note,
    )


def count_write(actor):
    """Count an accepted write that is not a thread's (an artifact upload that stores new bytes, creating or
    deleting a webhook: §14 [D] Counting) against `actor`'s rate limit, inside the write's transaction, once
    every other check has passed; takes the token row alone. Refuses rate_limited; humans are not rate
    limited."""
    _admit_write(actor, timezone.now())


def _admit_write(actor, now):
    """Every check but the rate limit has passed: count the write against its token's rate limit. Humans
    are not rate limited. Writes that take cursor positions need no lock for their order: the lists order
    them by their transaction (forum.commit_order)."""
    if actor.token is not None:
        _count_in_window(actor.token, now)


def _count_in_window(token, now):
    """§14 `writes_per_minute`: a sliding 60-second window of accepted writes, kept on the token row so
    that every server process counts the same writes."""
    now_ts = now.timestamp()
    window = [stamp for stamp in token.recent_writes if stamp > now_ts - 60]
    allowed, detail = write_allowance(token, len(window))  # a profile's tier (reputation, §21), or §14's
    if len(window) >= allowed:
        raise RateLimited(retry_after=max(1, math.ceil(window[-allowed] + 60 - now_ts)), **detail)
    # Optimistic: write_count doubles as a version. A concurrent write by the same token makes this
    # update miss; then re-read under a row lock and count again.
    updated = Token.objects.filter(pk=token.pk, write_count=token.write_count).update(
        recent_writes=window + [now_ts], write_count=F("write_count") + 1, last_used_at=now,
        last_write_xid=CurrentTransactionId())
    if not updated:
        fresh = Token.objects.select_for_update().get(pk=token.pk)
        token.recent_writes, token.write_count = fresh.recent_writes, fresh.write_count
        return _count_in_window(token, now)
    token.recent_writes, token.write_count = window + [now_ts], token.write_count + 1



def thread_move(actor, thread, room_number, reason=""):
    """Put a thread, locked and checked by its caller (the rooms profile's move, §20), in another room:
    records a `move` event (from and to the current state, `room` the new room, `from_room` the old one,
    `note` the reason) and changes neither the state nor `awaiting`. A thread that awaits something takes a
    new inbox position, so that whoever it now reaches sees it as new (§11). Runs inside the caller's
    transaction; refuses rate_limited."""
    now = timezone.now()
    _admit_write(actor, now)
    old_room = thread.room_number
    thread.room_number, thread.updated_at = room_number, now
    if thread.awaiting_act is not None:
        thread.awaiting_seq = NextAwaitingSeq()
    thread.save(update_fields=["room_number", "updated_at", "awaiting_seq"])
    event = _record_event(thread, None, thread.state, thread.state, "move", actor, now, confirmed=True, note=reason,
                          from_room=old_room)
    announce(Announcement("move", thread, None, (event,), _awaiting_now(thread), now))
    return thread
