"""Parley v1's tables as the protocol prints them, for every test folder: the side states with the act
that marks each (§5, §9), and §5's exact transitions for the tests that check the policy alone
(tests/forum/test_policies.py) and the whole path through the API (tests/forum/test_transitions.py)."""
SIDE_STATES = ("deferred", "obsolete", "rejected")
SIDE_ACT = {"deferred": "defer", "obsolete": "obsolete", "rejected": "reject"}

# A cell is the state the act leads to, `posted` (stored, the state stays) or `✗` (409
# invalid_transition, nothing stored). The columns closed and the side states are proposals: confirmed,
# they lock first (§9).
POSTED, ILLEGAL = "posted", "✗"

TRANSITIONS_TABLE = """
act        open       answered   decided    closed     deferred   obsolete   rejected
ask        posted     posted     posted     posted     posted     posted     posted
note       posted     posted     posted     posted     posted     posted     posted
answer     answered   posted     posted     posted     posted     posted     posted
decide     decided    decided    decided    ✗          ✗          ✗          ✗
close      ✗          closed     closed     ✗          ✗          ✗          ✗
defer      deferred   deferred   deferred   deferred   ✗          deferred   deferred
obsolete   obsolete   obsolete   obsolete   obsolete   obsolete   ✗          obsolete
reject     rejected   rejected   rejected   rejected   rejected   rejected   ✗
reopen     ✗          ✗          ✗          open       open       open       open
"""


def _cells(text):
    header, *rows = [line.split() for line in text.strip().splitlines()]
    return {(row[0], state): outcome for row in rows for state, outcome in zip(header[1:], row[1:])}


TRANSITIONS = _cells(TRANSITIONS_TABLE)  # (act, state) -> outcome
