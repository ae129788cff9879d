"""The pure rules, as tables: §5's transitions, §6's awaiting and §14's loop guard, asked of the policies
directly (no database, no request), row by row as the protocol states them. The API tests check that the
services follow the same rules end to end."""
from datetime import datetime, timezone

import pytest

from forum import policies
from forum.models import Thread
from tests.spec import ILLEGAL, POSTED, TRANSITIONS

CREATOR, PARENT_AUTHOR = "ainotes:alice", "ainotes:bob"
SINCE_CONFIRMED = datetime(2026, 1, 1, tzinfo=timezone.utc)


def thread(state, pending=False, **fields):
    """An unsaved thread of alice's in `state`: confirmed, or a proposal when `pending`."""
    return Thread(state=state, creator_identity=CREATOR,
                  state_confirmed_at=None if pending else SINCE_CONFIRMED, **fields)


# --- §5, §9: the transitions ------------------------------------------------------------------------

@pytest.mark.parametrize("kind,state", list(TRANSITIONS), ids=[f"{k}-on-{s}" for k, s in TRANSITIONS])
def test_the_next_state_of_each_act_in_each_state_is_the_tables(kind, state):
    outcome = TRANSITIONS[kind, state]
    if outcome == ILLEGAL:
        with pytest.raises(policies.Illegal):
            policies.next_state(kind, state)
    elif outcome == POSTED:
        assert policies.next_state(kind, state) is policies.STATE_UNCHANGED
    else:
        assert policies.next_state(kind, state) == outcome


REPEATED_PROPOSALS = [("close", "closed"), ("defer", "deferred"), ("obsolete", "obsolete"), ("reject", "rejected")]


@pytest.mark.parametrize("kind,state,may_confirm,says", [
    ("close", "open", False, "use obsolete, reject or defer"),
    ("close", "open", True, "use obsolete, reject or defer"),
    *[(kind, state, True, "confirm it with confirm, or drop it with dismiss") for kind, state in REPEATED_PROPOSALS],
    *[(kind, state, False, "awaits a moderator's confirmation") for kind, state in REPEATED_PROPOSALS],
])
def test_a_refused_transition_says_what_to_do_instead_for_the_callers_rights(kind, state, may_confirm, says):
    with pytest.raises(policies.Illegal, match=says):
        policies.next_state(kind, state, may_confirm)


# --- §6: whose turn it is after a message -----------------------------------------------------------

ANYONE, MODERATOR, UNCHANGED = "anyone", "moderator", "unchanged"
# (act, the thread's state before it, was that state a pending proposal, does the act bind at once)
#   -> (awaiting act, from whom), or UNCHANGED
AFTER_MESSAGE = [
    ("ask", "open", False, False, ("answer", PARENT_AUTHOR)),               # a follow-up
    ("answer", "open", False, False, ("decision", CREATOR)),                # proposes answered
    ("answer", "open", False, True, ("decision", CREATOR)),                 # answered, confirmed
    ("answer", "answered", False, False, ("decision", CREATOR)),            # a later answer
    ("note", "open", False, False, UNCHANGED),
    ("note", "answered", True, False, UNCHANGED),
    ("decide", "answered", False, False, ("confirmation", MODERATOR)),
    ("decide", "answered", False, True, ("close", CREATOR)),
    ("close", "decided", False, False, ("confirmation", MODERATOR)),
    ("close", "decided", False, True, (None, None)),
    *[(kind, "answered", False, False, ("confirmation", MODERATOR)) for kind in ("defer", "obsolete", "reject")],
    *[(kind, "answered", False, True, (None, None)) for kind in ("defer", "obsolete", "reject")],
    ("reopen", "closed", False, True, ("answer", ANYONE)),
    ("reopen", "deferred", True, True, ("answer", ANYONE)),
    # §14.1: while a mark awaits confirmation, replies leave `awaiting` alone.
    *[(kind, state, True, False, UNCHANGED) for kind in ("ask", "answer", "note")
      for state in ("decided", "closed", "deferred")],
]


@pytest.mark.parametrize("kind,state,pending,binds,expected", AFTER_MESSAGE,
                         ids=[f"{k}-on-{'proposed-' if p else ''}{s}-{'binding' if b else 'proposal'}"
                              for k, s, p, b, _ in AFTER_MESSAGE])
def test_a_message_leaves_the_awaiting_of_its_row(kind, state, pending, binds, expected):
    before = thread(state, pending)
    left = policies.awaiting_after_message(kind, before, policies.next_state(kind, state), binds, PARENT_AUTHOR)
    assert (UNCHANGED if left is policies.AWAITING_UNCHANGED else left) == expected


@pytest.mark.parametrize("state,expected", [
    ("open", ("answer", ANYONE)),
    ("answered", ("decision", CREATOR)),
    ("decided", ("close", CREATOR)),
    *[(state, (None, None)) for state in ("closed", "deferred", "obsolete", "rejected")],
])
def test_a_confirmed_state_implies_the_awaiting_of_its_row(state, expected):
    """What `confirm` sets, and what `dismiss` sets for the confirmed state it restores."""
    assert policies.awaiting_for_confirmed(thread(state)) == expected


# --- §14, §14.1: the loop guard ---------------------------------------------------------------------

LOOP_EXCHANGE_MAX = 8  # §14's reference value
# The speakers since the thread was opened, one letter per (identity, extension); `|` is a message that
# changed the state (it starts a new window and is not counted itself). Then: may the next speaker post?
LOOP_ROWS = [
    ("ABABABA", "A", True),      # seven alternating messages: the eighth may come
    ("ABABABAB", "A", False),    # eight alternating: the next from either is refused
    ("ABABABAB", "B", False),
    ("ABABABAB", "C", True),     # a third participant breaks it
    ("CABABABAB", "A", False),   # counted from where the alternation starts
    ("ABABABCB", "C", True),     # the third participant's arrival restarted the run at two
    ("AABABABA", "B", True),     # one speaker twice starts the alternation anew
    ("ABAB|ABAB", "A", True),    # a state change resets the window
    ("ABABABAB|", "A", True),
]


def after(speakers):
    """The thread's loop fields after these messages, folded through the policy as the services do."""
    last, prev, run = "", "", 0
    for speaker in speakers:
        changed = speaker == "|"
        last, prev, run = policies.loop_after(thread("open", loop_last=last, loop_prev=prev, loop_run=run),
                                              "" if changed else speaker, changed)
    return thread("open", loop_last=last, loop_prev=prev, loop_run=run)


@pytest.mark.parametrize("speakers,speaker,may_post", LOOP_ROWS, ids=[f"{s}-then-{n}" for s, n, _ in LOOP_ROWS])
def test_the_loop_guard_refuses_the_next_of_two_alternating_speakers_and_nobody_else(speakers, speaker,
                                                                                    may_post):
    assert policies.loop_guard_trips(after(speakers), speaker, LOOP_EXCHANGE_MAX) is not may_post
