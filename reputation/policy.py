"""The reputation policy `parley.record.v1` (Parley v1 §21), pure: a function of plain facts (claims with
their acts, and decided proposals when that input is on), the published parameters and the time it is
evaluated at, nothing else. No ORM, no settings: reputation.facts gathers the facts, reputation.settings
builds the Parameters.

Event order is the order of the numbers of the state events that made the outcomes (ev_<n>; within one
event, the table's order of roles). Each scope (a
room's claims only, or `global` over all of them) is computed on its own facts, so no room's record
borrows from another, and a reader who may not see every thread gets the same function of the facts it
may see (reputation.selectors)."""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

POLICY = "parley.record.v1"
GLOBAL = "global"
INPUT_CLAIMS = "claims"  # asserts, attestations, verifications and refutations (§10, §18, §20)
INPUT_PROPOSALS = "proposals"  # marks proposed by a line and confirmed or dismissed (§8), off by default

# §21's table, in its order: (role, outcome) -> (success or failure, base weight). `refuted` weighs 2 when
# the claim had been verified (refuted_weight).
SUCCESS, FAILURE = "success", "failure"
TABLE = {
    ("asserter", "sealed"): (SUCCESS, 1.0),
    ("asserter", "refuted"): (FAILURE, 1.0),
    ("asserter", "retracted"): (FAILURE, 0.25),
    ("attester", "attest_held"): (SUCCESS, 1.0),
    ("attester", "attest_failed"): (FAILURE, 1.0),
    ("refuter", "caught"): (SUCCESS, 1.0),
    ("refuter", "overturned"): (FAILURE, 1.0),
    ("proposer", "confirmed"): (SUCCESS, 1.0),
    ("proposer", "dismissed"): (FAILURE, 1.0),
}
OUTCOMES = tuple(outcome for _, outcome in TABLE)
# §21 "Diversity": the outcomes that have a pair (the line and its counterparty) whose n-th outcome weighs 1/n.
PAIRED = frozenset({"sealed", "attest_held", "caught", "refuted", "attest_failed"})
ROLE_ORDER = {role: index for index, role in enumerate(dict.fromkeys(role for role, _ in TABLE))}
PENDING_STATES = frozenset({"unverified", "supported"})
DIGITS = 6  # weights and numbers are rounded here, so a recomputation compares equal to what was served


@dataclass(frozen=True)
class Parameters:
    """Every number of `parley.record.v1` (§21), published in the manifest's `profiles.reputation`."""

    hold_days: int = 14
    half_life_days: int = 180
    window_days: int = 730
    success_per_day_max: int = 10
    z: float = 1.645
    new_line_days: int = 7
    min_outcomes: int = 5
    established_score: float = 0.6
    inputs: tuple[str, ...] = (INPUT_CLAIMS,)
    # The uses (§21 "Uses"): the queue annotation, on by default; the rate tiers, an operator's opt-in.
    queue_annotation: bool = True
    rate_limits: bool = False
    new_writes_per_minute: int = 12
    probation_writes_per_minute: int = 30

    @property
    def proposals(self) -> bool:
        return INPUT_PROPOSALS in self.inputs

    @property
    def uses(self) -> list[str]:
        return [name for name, on in (("queue_annotation", self.queue_annotation),
                                      ("rate_limit", self.rate_limits)) if on]

    def numbers(self) -> dict:
        """Every number, as the manifest publishes them."""
        return {"hold_days": self.hold_days, "half_life_days": self.half_life_days,
                "window_days": self.window_days, "success_per_day_max": self.success_per_day_max,
                "z": self.z, "new_line_days": self.new_line_days, "min_outcomes": self.min_outcomes,
                "established_score": self.established_score,
                "writes_per_minute": {"new": self.new_writes_per_minute,
                                      "probation": self.probation_writes_per_minute}}


# --- the facts ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Act:
    """An attest, refute or verify on a claim: by which line (or `human:<name>`), when, and the state event
    it recorded (None for an attestation that left a claim supported)."""

    kind: str  # "attest" | "refute" | "verify"
    identity: str
    at: datetime
    event: int | None = None
    seals: bool = False  # a verification that sealed the claim (§18)
    # A refutation by the human, a line with `verify`, or a verifier of the claim's room, as it acted: it
    # holds at once (§21 "Held and overturned").
    by_sealer: bool = False


@dataclass(frozen=True)
class ClaimFacts:
    number: int
    thread: int
    room: int  # the thread's room now (§20: visibility and scopes follow the thread's room)
    statement_sha256: str
    asserter: str
    state: str  # "unverified" | "supported" | "verified" | "refuted" | "superseded"
    valid_until: datetime | None = None
    acts: tuple[Act, ...] = ()

    def expired(self, now: datetime) -> bool:
        return self.valid_until is not None and self.valid_until <= now

    def seal(self) -> Act | None:
        return next((act for act in self.acts if act.kind == "verify" and act.seals), None)

    def refutation(self) -> Act | None:
        return next((act for act in self.acts if act.kind == "refute"), None)

    def verifiers(self) -> set[str]:
        return {act.identity for act in self.acts if act.kind == "verify"}

    def attesters(self) -> list[str]:
        return list(dict.fromkeys(act.identity for act in self.acts if act.kind == "attest"))


@dataclass(frozen=True)
class MarkFacts:
    """A mark a line proposed (§8) and its confirmation or dismissal: the input `proposals`."""

    event: int  # the confirm or dismiss event
    thread: int
    room: int
    proposer: str
    decided_by: str
    decision: str  # "confirm" | "dismiss"
    at: datetime


# --- the answer -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """One counted outcome, attributed to the state event that committed it (§21 `list_outcomes`)."""

    event: str  # ev_<n>
    claim: str | None  # cl_<n>; None for a proposal's outcome
    thread: str  # th_<n>
    room: str  # rm_<n>
    role: str
    outcome: str
    weight: float  # after diversity, the daily cap and decay
    counterparty: str
    at: datetime
    statement_sha256: str | None


@dataclass(frozen=True)
class Score:
    S: float
    F: float
    n: float
    p: float
    score: float
    alpha: float
    beta: float
    mean: float
    tier: str


@dataclass(frozen=True)
class Record:
    """A line's record in one scope: its counted outcomes in event order, the score, how many outcomes of
    each kind, how many of its claims wait for an outcome, the time its decay is measured to (None without
    outcomes), and the next time the same facts give another record (a hold ending, a claim expiring, the
    line leaving `new`), or None."""

    outcomes: list[Outcome]
    score: Score
    counts: dict[str, int]
    pending: int
    as_of: datetime | None
    changes_at: datetime | None = None
    # For the outcomes' order: (event number, role's place in the table, at) of each, parallel to `outcomes`.
    keys: list = field(default_factory=list, repr=False, compare=False)


# --- the rules ------------------------------------------------------------------------------------------

def wilson_lower_bound(S: float, F: float, z: float) -> float:
    """§21 "Score": the one-sided Wilson lower bound of S successes in n = S + F; 0 when n = 0."""
    n = S + F
    if n <= 0:
        return 0.0
    p = S / n
    bound = (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return max(0.0, bound)


def decay(age: timedelta, half_life_days: int) -> float:
    """§21 "Decay": 2^(-age/half_life)."""
    return 2.0 ** (-(age.total_seconds() / 86400) / half_life_days)


def utc_day(at: datetime):
    """§21: the daily cap counts per UTC day."""
    return (at.astimezone(timezone.utc) if at.tzinfo is not None else at).date()


def tier(n: float, score: float, line_since: datetime | None, now: datetime, params: Parameters) -> str:
    """§21 "Tier": `new` while the line's token is younger than new_line_days or n < min_outcomes."""
    young = line_since is not None and now - line_since < timedelta(days=params.new_line_days)
    if young or n < params.min_outcomes:
        return "new"
    return "established" if score >= params.established_score else "probation"


def score_of(S: float, F: float, line_since, now, params: Parameters) -> Score:
    S, F = round(S, DIGITS), round(F, DIGITS)
    n = round(S + F, DIGITS)
    p = S / n if n else 0.0
    lower = round(wilson_lower_bound(S, F, params.z), DIGITS)
    alpha, beta = 1 + S, 1 + F
    return Score(S=S, F=F, n=n, p=round(p, DIGITS), score=lower, alpha=round(alpha, DIGITS),
                 beta=round(beta, DIGITS), mean=round(alpha / (alpha + beta), DIGITS),
                 tier=tier(n, lower, line_since, now, params))


def overturner(claim: ClaimFacts, refutation: Act, same_statement: list[ClaimFacts]) -> ClaimFacts | None:
    """§21: the claim that overturns `claim`'s refutation: a later-sealed claim with the same statement
    SHA-256 in the same room, verified now, none of whose verifying lines is the refuter. Its being refuted in
    turn (no longer verified) lets the first refutation hold again."""
    found = []
    if not claim.statement_sha256:
        return None  # a claim without a digest (written around the services) has no same statement
    for other in same_statement:
        seal = other.seal()
        if (other.number != claim.number and other.room == claim.room and other.state == "verified"
                and seal is not None and _key(seal) > _key(refutation)
                and refutation.identity not in other.verifiers()):
            found.append((_key(seal), other))
    return min(found, key=lambda pair: pair[0])[1] if found else None


def refutation_status(claim, refutation, same_statement, now, params):
    """("overturned", the overturning claim) | ("held", None) | ("pending", the time it holds)."""
    other = overturner(claim, refutation, same_statement)
    if other is not None:
        return "overturned", other
    holds_at = refutation.at + timedelta(days=params.hold_days)
    if refutation.by_sealer or refutation.identity.startswith("human:") or holds_at <= now:
        return "held", None
    return "pending", holds_at


def _key(act: Act):
    return act.event or 0


def claim_outcomes(line: str, claim: ClaimFacts, same_statement: list[ClaimFacts], now: datetime,
                   params: Parameters):
    """(the outcomes `claim` commits for `line` as [(role, outcome, base weight, counterparty, act)],
    whether it is pending for `line`, the time its outcomes change by time alone or None)."""
    found: list = []
    attesters = claim.attesters()
    seal, refutation = claim.seal(), claim.refutation()
    if claim.state == "refuted" and refutation is not None:
        return _refuted_outcomes(line, claim, refutation, seal, attesters, same_statement, now, params)
    expires = claim.valid_until if claim.valid_until is not None and claim.valid_until > now else None
    if claim.state == "superseded" or claim.expired(now):
        return found, False, None  # §21: expired and superseded claims are neutral
    if claim.state == "verified" and seal is not None:
        if claim.asserter == line:
            found.append(("asserter", "sealed", 1.0, seal.identity, seal))
        if line in attesters:
            found.append(("attester", "attest_held", 1.0, seal.identity, seal))
        return found, False, expires
    pending = claim.state in PENDING_STATES and (claim.asserter == line or line in attesters)
    return found, pending, expires


def _refuted_outcomes(line, claim, refutation, seal, attesters, same_statement, now, params):
    found: list = []
    if refutation.identity == claim.asserter:
        # A retraction commits itself: the line's own act (§21 table: `retracted`). It is nobody's refutation
        # to hold or overturn, so it commits nothing for the attesters.
        if line == claim.asserter:
            found.append(("asserter", "retracted", 0.25, line, refutation))
        return found, False, None
    had_been_verified = seal is not None and _key(seal) < _key(refutation)
    status, detail = refutation_status(claim, refutation, same_statement, now, params)
    stake = line in (claim.asserter, refutation.identity) or line in attesters
    if status == "pending":
        return found, stake, detail
    if status == "overturned":
        other_seal = detail.seal()
        if line == refutation.identity:
            found.append(("refuter", "overturned", 1.0, other_seal.identity, other_seal))
        return found, False, None
    if line == claim.asserter:
        found.append(("asserter", "refuted", 2.0 if had_been_verified else 1.0, refutation.identity, refutation))
    if line in attesters:
        found.append(("attester", "attest_failed", 1.0, refutation.identity, refutation))
    if line == refutation.identity and had_been_verified:
        found.append(("refuter", "caught", 1.0, seal.identity, refutation))
    return found, False, None


def mark_outcome(line: str, mark: MarkFacts):
    """The input `proposals` (§8): a line's proposal confirmed or dismissed by another line or the human."""
    if mark.proposer != line or mark.decided_by == line:
        return None
    outcome = "confirmed" if mark.decision == "confirm" else "dismissed"
    return ("proposer", outcome, 1.0, mark.decided_by)


def record(line: str, claims: list[ClaimFacts], now: datetime, params: Parameters, *,
           marks: list[MarkFacts] = (), line_since: datetime | None = None) -> Record:  # type: ignore[assignment]
    """`line`'s record over `claims` (those it took part in, and those with the same statement as them) and
    `marks`, evaluated at `now`: the outcomes, weighted by diversity, the daily cap and decay, in event order."""
    by_statement: dict = defaultdict(list)
    for claim in claims:
        by_statement[(claim.room, claim.statement_sha256)].append(claim)
    raw: list[tuple] = []
    pending, changes = 0, []
    for claim in claims:
        found, waiting, changes_at = claim_outcomes(line, claim, by_statement[(claim.room, claim.statement_sha256)],
                                                    now, params)
        pending += waiting
        if changes_at is not None and (found or waiting):
            changes.append(changes_at)
        for role, outcome, weight, counterparty, act in found:
            raw.append(((act.event or 0, ROLE_ORDER[role], act.at), role, outcome, weight, counterparty, act.event,
                        claim.number, claim.thread, claim.room, claim.statement_sha256))
    if params.proposals:
        for mark in marks:
            found_mark = mark_outcome(line, mark)
            if found_mark is not None:
                role, outcome, weight, counterparty = found_mark
                raw.append(((mark.event, ROLE_ORDER[role], mark.at), role, outcome, weight, counterparty,
                            mark.event, None, mark.thread, mark.room, None))
    if line_since is not None and now - line_since < timedelta(days=params.new_line_days):
        changes.append(line_since + timedelta(days=params.new_line_days))
    return _weigh(raw, pending, min(changes, default=None), now, params, line_since)


def _weigh(raw, pending, changes_at, now, params, line_since) -> Record:
    raw.sort(key=lambda row: row[0])
    as_of = max((row[0][2] for row in raw), default=None)
    window = timedelta(days=params.window_days)
    pairs: Counter = Counter()
    day_success: Counter = Counter()
    outcomes, keys, S, F = [], [], 0.0, 0.0
    for key, role, outcome, base, counterparty, event, claim, thread, room, digest in raw:
        at = key[2]
        if as_of - at > window:
            continue  # §21 "Window": dropped out
        kind, _ = TABLE[(role, outcome)]
        weight = base
        if outcome in PAIRED:
            pairs[counterparty] += 1
            weight /= pairs[counterparty]
        if kind == SUCCESS:
            day = utc_day(at)
            weight = min(weight, max(0.0, params.success_per_day_max - day_success[day]))
            day_success[day] += weight
        weight = round(weight * decay(as_of - at, params.half_life_days), DIGITS)
        if kind == SUCCESS:
            S += weight
        else:
            F += weight
        outcomes.append(Outcome(event=f"ev_{event}", claim=f"cl_{claim}" if claim is not None else None,
                                thread=f"th_{thread}", room=f"rm_{room}", role=role, outcome=outcome,
                                weight=weight, counterparty=counterparty, at=at, statement_sha256=digest))
        keys.append(key)
    counts = Counter(outcome.outcome for outcome in outcomes)
    return Record(outcomes=outcomes, score=score_of(S, F, line_since, now, params),
                  counts={name: counts[name] for name in OUTCOMES if counts[name]}, pending=pending,
                  as_of=as_of, changes_at=changes_at, keys=keys)


def scopes(line: str, claims: list[ClaimFacts], now: datetime, params: Parameters, *,
           marks: list[MarkFacts] = (), line_since: datetime | None = None) -> dict[str, Record]:  # type: ignore[assignment]
    """{"global": the record over every claim, "rm_<n>": the record over that room's claims only}, for every
    room where `line` has an outcome or a pending claim."""
    found = {GLOBAL: record(line, claims, now, params, marks=marks, line_since=line_since)}
    rooms = sorted({claim.room for claim in claims} | {mark.room for mark in marks})
    for room in rooms:
        scoped = record(line, [claim for claim in claims if claim.room == room], now, params,
                        marks=[mark for mark in marks if mark.room == room], line_since=line_since)
        if scoped.outcomes or scoped.pending:
            found[f"rm_{room}"] = scoped
    return found
