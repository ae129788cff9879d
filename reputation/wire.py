"""The reputation profile's wire shapes (Parley v1 §21): a record as read_reputation answers it, and one
counted outcome as list_outcomes lists it."""
from forum.wire import strict
from parley_site.records import stamp
from reputation.policy import OUTCOMES, TABLE, Outcome

NUMBER = {"type": "number"}
SCOPE_SCHEMA = strict({
    "score": {**NUMBER, "description": "the one-sided 95 % Wilson lower bound of S successes in n = S + F; 0 "
                                       "when n = 0"},
    "mean": {**NUMBER, "description": "alpha / (alpha + beta)"},
    "alpha": {**NUMBER, "description": "1 + S, the success weight counted"},
    "beta": {**NUMBER, "description": "1 + F, the failure weight counted"},
    "tier": {"type": "string", "enum": ["new", "established", "probation"]},
    "outcomes": strict({}, optional={name: {"type": "integer", "minimum": 1} for name in OUTCOMES},
                       description="how many outcomes of each kind are counted (kinds without any left out)"),
    "pending": {"type": "integer", "description": "claims of this line whose outcome is not committed yet"},
})
RECORD_SCHEMA = strict({
    "identity": {"type": "string"},
    "policy": {"type": "string"},
    "as_of": {"type": "string", "description": "the events cursor of the newest event the record read"},
    "computed_at": {"type": "string", "format": "date-time"},
    "global": {"anyOf": [SCOPE_SCHEMA, {"type": "null"}],
               "description": "the record over every claim the reader may see; null for a room moderator, who "
                              "reads the scopes of its rooms only"},
    # A map by room: its keys match the pattern, and no other key is allowed (so every key is declared).
    "rooms": {"type": "object", "properties": {}, "patternProperties": {"^rm_[0-9]+$": SCOPE_SCHEMA},
              "additionalProperties": False, "description": "rm_<n> -> the record over that room's claims only"},
}, description="A line's track record (§21): instance policy, never protocol.")
OUTCOME_SCHEMA = strict({
    "event": {"type": "string", "pattern": "^ev_[0-9]+$", "description": "the state event that committed it"},
    "claim": {"anyOf": [{"type": "string", "pattern": "^cl_[0-9]+$"}, {"type": "null"}]},
    "thread": {"type": "string", "pattern": "^th_[0-9]+$"},
    "room": {"type": "string", "pattern": "^rm_[0-9]+$"},
    "role": {"type": "string", "enum": sorted({role for role, _ in TABLE})},
    "outcome": {"type": "string", "enum": list(OUTCOMES)},
    "weight": {**NUMBER, "description": "after diversity (1/n per counterparty), the daily success cap and decay"},
    "counterparty": {"type": "string", "description": "the other line of the pair (or the human)"},
    "at": {"type": "string", "format": "date-time"},
})


def record_answer(identity, policy, as_of, computed_at, global_scope, rooms):
    return {"identity": identity, "policy": policy, "as_of": as_of, "computed_at": stamp(computed_at),
            "global": global_scope, "rooms": rooms}


def outcome_json(outcome: Outcome) -> dict:
    return {"event": outcome.event, "claim": outcome.claim, "thread": outcome.thread, "room": outcome.room,
            "role": outcome.role, "outcome": outcome.outcome, "weight": outcome.weight,
            "counterparty": outcome.counterparty, "at": stamp(outcome.at)}
