"""The invariants a load or fault run must leave behind, checked over the whole database (Parley v1 §9:
every write serialised, no lost message, nothing accepted after a confirmed close). Each check returns the
list of violations, so a failing assertion shows them."""
from collections import Counter, defaultdict

from forum.models import TERMINAL_STATES, Message, StateEvent, Thread
from parley_site.errors import REFUSALS

KNOWN_REASONS = {refusal.reason for refusal in REFUSALS}


def assert_the_load_left_everything_consistent(ledger, allowed_5xx=()):
    """What every load run must leave: no 5xx (but those allowed), only §13 reasons, writes over both doors,
    at least one confirmed close met, and every invariant below over the whole database."""
    answers = ledger.answers
    assert [a.status for a in answers if a.status >= 500 and a.status not in allowed_5xx] == []
    assert {a.reason for a in answers if a.status >= 400} <= KNOWN_REASONS
    assert sum(1 for a in answers if a.status in (200, 201)) > 100, "the load hardly wrote anything"
    assert {a.transport for a in answers if a.status < 300} == {"rest", "mcp"}
    assert any(a.reason == "thread_locked" for a in answers), "no write met a locked thread: nothing to check"
    assert acknowledged_stored_exactly_once(ledger.acknowledged_messages()) == []
    assert thread_chains_consistent() == []
    assert nothing_accepted_after_a_confirmed_close() == []


def acknowledged_stored_exactly_once(acknowledged):
    """Every acknowledged message is stored, once, as acknowledged; nothing is stored unacknowledged."""
    ids = [int(message["id"][4:]) for message in acknowledged]
    duplicates = [key for key, count in Counter(ids).items() if count > 1]
    stored = {row.pk: row for row in Message.objects.filter(pk__in=ids)}
    problems = [f"msg_{key} acknowledged twice" for key in duplicates]
    for message in acknowledged:
        row = stored.get(int(message["id"][4:]))
        if row is None:
            problems.append(f"{message['id']} acknowledged but not stored")
        elif (f"th_{row.thread_id}", row.kind, row.body) != (message["thread"], message["kind"], message["body"]):
            problems.append(f"{message['id']} stored differently from what was acknowledged")
    unacknowledged = Message.objects.exclude(pk__in=ids).count()
    if unacknowledged:
        problems.append(f"{unacknowledged} message(s) stored that no answer acknowledged")
    return problems


def thread_chains_consistent():
    """Per thread: counts match, and the event chain links up and ends in the thread's state."""
    events, messages = _histories()
    problems = []
    for thread in Thread.objects.all():
        problems += [f"th_{thread.pk}: {problem}" for problem in
                     _chain_problems(thread, events[thread.pk], messages[thread.pk])]
    return problems


def nothing_accepted_after_a_confirmed_close():
    """§9: once a close (or any terminal state) is confirmed, the thread accepts nothing until a reopen
    moves it on; that reopen is the next event, so the locked span ends there."""
    events, messages = _histories()
    problems = []
    for thread_id, chain in events.items():
        for start, end, state in _locked_spans(chain):
            problems += [f"th_{thread_id}: msg_{message.pk} ({message.kind}) accepted after a confirmed {state}"
                         for message in messages[thread_id]
                         if message.created_at > start and (end is None or message.created_at < end)]
    return problems


def _histories():
    """Each thread's state events (claims aside) and messages, in the order they were written."""
    events, messages = defaultdict(list), defaultdict(list)
    for event in StateEvent.objects.filter(claim_number__isnull=True).order_by("id"):
        events[event.thread_id].append(event)
    for message in Message.objects.order_by("id").only("id", "thread_id", "kind", "created_at"):
        messages[message.thread_id].append(message)
    return events, messages


def _chain_problems(thread, events, messages):
    problems = []
    if thread.message_count != len(messages):
        problems.append(f"message_count {thread.message_count} but {len(messages)} stored")
    if not events or (events[0].from_state, events[0].to_state, events[0].label) != (None, "open", "ask"):
        return problems + ["the chain does not start with ask -> open"]
    for before, after in zip(events, events[1:]):
        if after.from_state != before.to_state:
            problems.append(f"ev_{after.pk} starts from {after.from_state}, the chain was at {before.to_state}")
    last = events[-1]
    if last.to_state != thread.state:
        problems.append(f"state {thread.state} but the chain ends at {last.to_state}")
    if (last.confirmed_at is None) != thread.is_pending:
        problems.append("pending state and the last event disagree")
    return problems


def _locked_spans(events):
    """(start, end or None, state) from each confirmation of a terminal state to the thread's next event.

    Timestamps are taken under the thread's row lock, so they order one thread's writes. The start is
    exclusive: a lock holder's close is confirmed at the instant its own message is stored."""
    return [(event.confirmed_at, following.at if following else None, event.to_state)
            for event, following in zip(events, events[1:] + [None])
            if event.to_state in TERMINAL_STATES and event.confirmed_at is not None]
