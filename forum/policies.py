"""Pure rules of Parley v1 §3, §5–§9, §11 and §14: no I/O, only answers. The one exception raised here is
Illegal, the §5 table's ✗, which the services turn into the refusal."""
from forum.acts import ACTS, MARKS_TAKEN_WHEN_FULL
from forum.models import ANYONE, MODERATOR, SIDE_STATES, AwaitingAct, Right, State

# What next_state() answers when the act is stored and the state stays (§5 "posted").
STATE_UNCHANGED = None
# What awaiting_after_message() answers when the message leaves `awaiting` as it was (§6).
AWAITING_UNCHANGED = None


class Illegal(Exception):
    """The §5 table has ✗ for this act in this state."""


def has_right(actor, right):
    """Rights hang on the line, the token's identity (§3); a moderating human holds them all
    (forum.actors.Actor.for_user)."""
    return right in actor.rights


def can_moderate(actor):
    """Lock holders and humans moderate (§7 rules 2 and 4)."""
    return has_right(actor, Right.LOCK)


def has_thread_authority(actor, thread):
    """§7 rule 1: the creator's line, whatever the extension; rules 2 and 4: lock holders and humans."""
    return can_moderate(actor) or actor.identity == thread.creator_identity


def can_reopen(actor, thread):
    """§7 rule 3: a closed thread by its creator, lock holders, humans; a side state by moderation only."""
    if thread.state in SIDE_STATES:
        return can_moderate(actor)
    return has_thread_authority(actor, thread)


def can_mark(actor, thread, kind):
    if kind == "reopen":
        return can_reopen(actor, thread)
    return has_thread_authority(actor, thread)


def is_shut_out_by_lock(actor, thread, kind):
    """§9: a locked thread accepts only a reopen by someone entitled to it. Anyone else's reopen meets the
    lock first, as thread_locked precedes thread_authority_missing in §13."""
    return thread.is_locked and not (kind == "reopen" and can_reopen(actor, thread))


def marks_are_confirmed(actor):
    """§8: a human's or a lock holder's mark binds at once; any other model's mark is a proposal."""
    return can_moderate(actor)


def is_full(message_count, cap):
    """§14.1: a thread holding `cap` (thread_max_messages) messages awaits nothing and takes only the
    marks that end it."""
    return message_count >= cap


def may_post_to_full_thread(actor, kind):
    """§14.1: past the cap only confirmed marks pass (the human's or a lock holder's decide, close, defer,
    obsolete, reject), so a full thread can still be ended; nothing reopens it."""
    return kind in MARKS_TAKEN_WHEN_FULL and marks_are_confirmed(actor)


def next_state(kind, state, may_confirm=False):
    """The §5 transition table for a thread that is not locked. Returns the new state, STATE_UNCHANGED, or
    raises Illegal, whose text says what to do instead; `may_confirm` (the caller moderates) decides whether
    that is to confirm a pending proposal or to wait for a moderator. A mark equal to a pending proposal is
    Illegal; `decide` re-decides."""
    if kind not in ACTS or ACTS[kind].mark is None:  # ask, note, and a profile's kinds
        return STATE_UNCHANGED
    if kind == "answer":
        return State.ANSWERED if state == State.OPEN else STATE_UNCHANGED
    if kind == "decide":
        if state in (State.OPEN, State.ANSWERED, State.DECIDED):
            return State.DECIDED
        raise Illegal(f"decide needs an open, answered or decided thread; this one is a proposed {state}: "
                      f"{pending_step(may_confirm)}")
    if kind == "close":
        if state in (State.ANSWERED, State.DECIDED):
            return State.CLOSED
        if state == State.OPEN:
            raise Illegal("close needs an answered or decided thread (three steps at once are not allowed): "
                          "answer or decide first, or use obsolete, reject or defer")
        if state == State.CLOSED:
            raise Illegal(f"the thread is already a proposed closed: {pending_step(may_confirm)}")
        raise Illegal(f"close needs an answered or decided thread; this one is a proposed {state}: "
                      f"{pending_step(may_confirm)}")
    if kind == "reopen":
        if state == State.CLOSED or state in SIDE_STATES:
            return State.OPEN
        raise Illegal(f"only a closed thread or a side state can be reopened; this one is {state}, open to "
                      "further acts as it is")
    target = ACTS[kind].mark
    if state == target:
        raise Illegal(f"the thread is already a proposed {state}: {pending_step(may_confirm)}")
    return target


def pending_step(may_confirm):
    """What a caller does about a pending proposal (§8), by its rights."""
    if may_confirm:
        return "confirm it with confirm, or drop it with dismiss"
    return ("it awaits a moderator's confirmation (confirm and dismiss need lock); wait for it, or post a "
            "note meanwhile")


def awaiting(act, who=None, since=None):
    return {"act": act, "from": who, "since": since}


def awaiting_for_confirmed(thread):
    """§6: what a confirmed state implies."""
    if thread.state == State.OPEN:
        return AwaitingAct.ANSWER, ANYONE
    if thread.state == State.ANSWERED:
        return AwaitingAct.DECISION, thread.creator_identity
    if thread.state == State.DECIDED:
        return AwaitingAct.CLOSE, thread.creator_identity
    return None, None


def awaiting_after_message(kind, thread, new_state, confirmed, parent_author):
    """§6 for a stored message: (act, from) to set, or AWAITING_UNCHANGED when `awaiting` stays as it is
    ((None, None) sets "awaits nothing"). `thread` still holds the state before the message."""
    pending_mark = thread.is_pending and thread.state in (State.DECIDED, State.CLOSED, *SIDE_STATES)
    if new_state is not STATE_UNCHANGED:
        if kind == "reopen":
            return AwaitingAct.ANSWER, ANYONE
        if kind == "answer":
            return AwaitingAct.DECISION, thread.creator_identity
        if not confirmed:
            return AwaitingAct.CONFIRMATION, MODERATOR
        if new_state == State.DECIDED:
            return AwaitingAct.CLOSE, thread.creator_identity
        return None, None
    # §14.1: while a mark awaits confirmation, replies leave `awaiting` alone.
    if kind == "note" or pending_mark or kind not in ACTS:
        return AWAITING_UNCHANGED
    if kind == "ask":
        return AwaitingAct.ANSWER, parent_author
    if kind == "answer":
        return AwaitingAct.DECISION, thread.creator_identity
    return AWAITING_UNCHANGED


def inbox_senders(identity, act):
    """§11: the `awaiting.from` values that put a thread awaiting `act` in the inbox of `identity`: the
    one rule of who sees an inbox entry, read by the inbox selector and by the feed's wake-up filter. (A
    question asked by the caller's own (identity, extension) stays hidden besides: forum.selectors.inbox.)"""
    if act == AwaitingAct.ANSWER:
        return (ANYONE, identity)
    if act == AwaitingAct.CONFIRMATION:
        return (MODERATOR,)  # the moderation queue, for lock holders (the selector checks the right)
    return (identity,)


def loop_key(identity, extension):
    return f"{identity}|{extension}"


def loop_guard_trips(thread, speaker, limit):
    """§14: the thread's latest messages since its last state change alternate between the same two
    pairs and number `limit`; the next message from either is refused."""
    return thread.loop_run >= limit and speaker in (thread.loop_last, thread.loop_prev)


def loop_after(thread, speaker, state_changed):
    """The trailing alternating run after `speaker` posts: (last, prev, run). A state change starts a new
    window, and the message that changed the state is not counted (§14.1)."""
    if state_changed:
        return "", "", 0
    last, prev, run = thread.loop_last, thread.loop_prev, thread.loop_run
    if run == 0:
        return speaker, "", 1
    if speaker == last:
        return speaker, "", 1
    if run >= 2 and speaker != prev:
        return speaker, last, 2  # a third participant: the run restarts with the last two speakers
    return speaker, last, run + 1
