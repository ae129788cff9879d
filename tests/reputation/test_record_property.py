"""§21 as a property: whatever dialectic history comes to pass (asserts, attests, verifications by several
lines and the human, quorums, refutations by ordinary lines, `verify` lines, a room verifier, the human and
the asserter itself, overturns by a same-statement claim, supersessions, expiries, two rooms, weeks and
years of waiting), the record served for every line (read_reputation, and list_outcomes which explains it)
is what an oracle written here from §21's text computes.

The oracle reads only what any client reads: the claims as read_claim answers them (their acts with who
and when), the room each was asserted in, who holds `verify` or is the room's verifier, and the moment of
the newest event (the record's `as_of`, a tick this test makes last). It imports nothing of the server's
reputation code. Readings of §21 it takes, where the text leaves a choice:
- an outcome is evaluated on the claims' current states at as_of: `sealed` and `attest_held` count while
  the claim is `verified`; a claim `refuted` by another line counts nothing until the refutation held or
  was overturned; superseded and expired claims are neutral, a sealed one too (§10: past `valid_until` a
  claim's certainty drops to `unverified`), but for a refutation, which stays final;
- `pending` counts the claims in which the line has a stake still open: its own or attested claims in
  `unverified` or `supported` that have not expired, and claims whose refutation (by another line) has
  not held yet, for their asserter, attesters and refuter;
- a retraction (the asserter refuting its own claim) counts 0.25 at once, is never overturned, and costs
  its attesters nothing;
- an outcome's `at` is the time of the event that made it: the sealing verification for `sealed`,
  `attest_held`; the refutation for `refuted`, `attest_failed`, `caught`, `retracted`; the overturning
  claim's seal for `overturned`; the human counts as a counterparty like a line;
- diversity (1/n per pair, n over both successes and failures of the pair, in `at` order, within the
  window) applies to the five outcomes §21 names a pair for; then the daily cap (10 success weight per
  UTC day of `at`, in `at` order, the outcome crossing it trimmed); then decay to as_of;
- each room scope is the same computation over that room's claims only; `outcomes` counts the counted
  outcomes of each kind within the window."""
import math
from collections import defaultdict
from datetime import datetime, timedelta

from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reputation.history import (FAILURES, HOLD_DAYS, ROLES, SUCCESS_PER_DAY_MAX, SUCCESSES, WINDOW_DAYS,
                                      Forum, assert_scope, close, decay, digest)

ASSERTERS = ("ann", "ben", "cat", "vic")
ATTESTERS = ("ann", "ben", "cat")
VERIFIERS = ("vic", "val", "rho", "human")  # vic, val hold `verify`; rho verifies the lab; the human
REFUTERS = ("ann", "ben", "cat", "vic", "val", "rho", "human")
STATEMENTS = ("The bridge holds.", "The test is flaky.", "Port 8000.")
ROOMS = ("default", "lab")
CLAIM = st.integers(0, 6)  # counted back from the newest claim, so that acts meet claims they can move

ASSERT = st.tuples(st.just("assert"), st.sampled_from(ASSERTERS), st.sampled_from(STATEMENTS),
                   st.sampled_from(ROOMS), st.sampled_from([1, 1, 1, 2]), st.sampled_from([None, None, None, 1, 30]))
SEAL = st.tuples(st.just("seal"), st.sampled_from(ATTESTERS), st.sampled_from(VERIFIERS), CLAIM)
STEPS = st.one_of(
    ASSERT, ASSERT, SEAL, SEAL,
    st.tuples(st.just("attest"), st.sampled_from(ATTESTERS), CLAIM),
    st.tuples(st.just("verify"), st.sampled_from(VERIFIERS), CLAIM),
    st.tuples(st.just("refute"), st.sampled_from(REFUTERS), CLAIM),
    st.tuples(st.just("refute"), st.sampled_from(REFUTERS), CLAIM),
    st.tuples(st.just("supersede"), CLAIM, st.sampled_from(STATEMENTS)),
    st.tuples(st.just("wait"), st.sampled_from([1, 3, 13, 15, 100, 400])),
)
GAPS = st.sampled_from([1, 7, 60, 600, 1500])  # minutes between two steps


def when(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class History:
    """The lines, rooms and claims of one example, built through the API; what the oracle reads back."""

    def __init__(self, forum):
        self.forum, self.born = forum, forum.now  # every line's token is created now
        self.agents = {name: forum.line(name) for name in ("ann", "ben", "cat", "rho")}
        self.agents |= {name: forum.line(name, "verify") for name in ("vic", "val")}
        self.agents["human"] = forum.human()
        self.mod = forum.line("mod", "lock")
        self.rooms = {"default": "rm_1", "lab": forum.room("lab")}
        forum.appoint(self.rooms["lab"], self.agents["rho"], "verifier")
        self.claims = []  # (Claim, room)
        forum.later(days=8)

    def identity(self, name):
        return "human:hannah" if name == "human" else self.agents[name].identity

    def apply(self, step):
        forum, kind = self.forum, step[0]
        if kind == "wait":
            forum.later(days=step[1])
            return
        if kind == "assert":
            _, asserter, statement, room, quorum, lifetime = step
            fields = {"quorum": quorum} if quorum > 1 else {}
            if lifetime:
                fields["valid_until"] = (forum.now + timedelta(days=lifetime)).isoformat().replace("+00:00", "Z")
            self.claims.append((forum.claim(self.agents[asserter], statement, room=self.rooms[room], **fields),
                                self.rooms[room]))
        elif not self.claims:
            return
        elif kind == "supersede":
            old, room = self.pick(step[1])
            asserter = self.read(old)["asserted_by"]["identity"]
            agent = next(agent for name, agent in self.agents.items() if self.identity(name) == asserter)
            response = agent.say("assert", step[2], thread=old.thread, supersedes=[old.id])
            if response.status_code == 201:
                created = response.json()["claim"]
                self.claims.append((type(old)(created["id"], old.thread, step[2]), room))
        elif kind == "seal":  # an attestation, then a verification: most claims that get sealed get there so
            self.apply(("attest", step[1], step[3]))
            forum.later(minutes=1)
            self.apply(("verify", step[2], step[3]))
        else:
            claim, _ = self.pick(step[2])
            response = forum.act(self.agents[step[1]], kind, claim, proof=kind != "verify")
            assert response.status_code in (201, 403, 409), response.content  # refused acts change nothing

    def pick(self, back):
        return self.claims[-1 - back % len(self.claims)]

    def read(self, claim):
        response = self.mod.get(f"/api/v1/claims/{claim.id}")
        assert response.status_code == 200, response.content
        return response.json()["claim"]


# The oracle.

def sealing(claim):
    """(the seal's time, the sealing line, every line whose verification counted) of a verified-once claim."""
    if claim["verified_by"] is None:
        return None, None, set()
    sealer = claim["verified_by"]["identity"]
    at = max(when(act["at"]) for act in claim["verifications"] if act["by"]["identity"] == sealer)
    return at, sealer, {act["by"]["identity"] for act in claim["verifications"] if when(act["at"]) <= at}


def immediate(refuter, room, verifiers_of):
    return refuter.startswith("human:") or refuter in verifiers_of["*"] or refuter in verifiers_of[room]


def overturn_of(claim, room, claims):
    """The earliest seal, after the refutation, of a claim of the same statement in the same room, now
    `verified`, none of whose sealing lines is the refuter: its time, or None."""
    refuter, refuted_at = claim["refutation"]["by"]["identity"], when(claim["refutation"]["at"])
    seals = []
    for other, other_room in claims:
        if other["state"] != "verified" or other_room != room or digest(other["statement"]) != digest(claim["statement"]):
            continue
        at, _, sealers = sealing(other)
        if at > refuted_at and refuter not in sealers:
            seals.append(at)
    return min(seals, default=None)


def raw_outcomes(claims, verifiers_of, as_of):
    """(every outcome the claims commit at as_of: (line, at, outcome, base weight, pair or None, claim id,
    room), {line: how many claims are pending for it})."""
    found, pending = [], defaultdict(int)
    for claim, room in claims:
        asserter = claim["asserted_by"]["identity"]
        attesters = sorted({act["by"]["identity"] for act in claim["attestations"]})
        seal_at, sealer, _ = sealing(claim)
        made = []
        if claim["state"] == "refuted":
            refuter, refuted_at = claim["refutation"]["by"]["identity"], when(claim["refutation"]["at"])
            overturned_at = overturn_of(claim, room, claims) if refuter != asserter else None
            if refuter == asserter:
                made += [(asserter, refuted_at, "retracted", 0.25, None)]
            elif overturned_at is not None:
                made += [(refuter, overturned_at, "overturned", 1, None)]
            elif immediate(refuter, room, verifiers_of) or as_of - refuted_at >= timedelta(days=HOLD_DAYS):
                was_verified = seal_at is not None and seal_at <= refuted_at
                made += [(asserter, refuted_at, "refuted", 2 if was_verified else 1, refuter)]
                made += [(attester, refuted_at, "attest_failed", 1, refuter) for attester in attesters]
                if was_verified:
                    made += [(refuter, refuted_at, "caught", 1, sealer)]
            else:
                for line in {asserter, refuter, *attesters}:
                    pending[line] += 1
        elif claim["state"] == "superseded" or claim["expired"]:
            pass
        elif claim["state"] == "verified":
            made += [(asserter, seal_at, "sealed", 1, sealer)]
            made += [(attester, seal_at, "attest_held", 1, sealer) for attester in attesters]
        else:
            for line in {asserter, *attesters}:
                pending[line] += 1
        found += [(line, at, outcome, base, pair, claim["id"], room) for line, at, outcome, base, pair in made
                  if not line.startswith("human:")]
    return found, pending


def decay_reference(outcomes, as_of):
    """The moment ages are measured to (decay, window), as §21 words it: "the record's as_of (the time of the
    newest event it counts)", read as the newest outcome the line's record counts in the scope (as_of when it
    counts none). A served record then changes only with the line's own outcomes (and with holds, expiries
    and its tier, which time decides)."""
    return max((item[1] for item in outcomes), default=as_of)


def record_of(line, outcomes, as_of):
    """(S, F, {outcome: count}, [(claim, outcome, weight)]) of one line over the outcomes of one scope."""
    as_of = decay_reference([item for item in outcomes if item[0] == line], as_of)
    mine = sorted((item for item in outcomes if item[0] == line and as_of - item[1] <= timedelta(days=WINDOW_DAYS)),
                  key=lambda item: (item[1], item[5]))
    pairs, per_day, weights = defaultdict(int), defaultdict(float), []
    for _, at, outcome, base, pair, claim, _ in mine:
        weight = base
        if pair is not None:
            pairs[pair] += 1
            weight = base / pairs[pair]
        if outcome in SUCCESSES:
            day = at.date()
            weight = min(weight, max(0.0, SUCCESS_PER_DAY_MAX - per_day[day]))
            per_day[day] += weight
        weights.append((claim, outcome, weight * decay(as_of - at)))
    counts = defaultdict(int)
    for _, outcome, _ in weights:
        counts[outcome] += 1
    successes = math.fsum(w for _, outcome, w in weights if outcome in SUCCESSES)
    failures = math.fsum(w for _, outcome, w in weights if outcome in FAILURES)
    return successes, failures, dict(counts), weights


def check_scope(served, items, line, claims, verifiers_of, as_of, token_age):
    outcomes, pending = raw_outcomes(claims, verifiers_of, as_of)
    successes, failures, counts, weights = record_of(line, outcomes, as_of)
    assert_scope(served, successes, failures, token_age=token_age)
    assert {kind: n for kind, n in served["outcomes"].items() if n} == counts, (served, counts)
    assert served["pending"] == pending[line], (served, pending)
    listed = sorted((item["claim"], item["outcome"], item["weight"]) for item in items if item["weight"])
    expected = sorted(item for item in weights if item[2])
    assert [(claim, outcome) for claim, outcome, _ in listed] == [(claim, outcome) for claim, outcome, _ in expected]
    assert all(close(a[2], b[2]) for a, b in zip(listed, expected)), (listed, expected)
    assert all(item["role"] == ROLES[item["outcome"]] for item in items)


def check_every_record(history):
    forum = history.forum
    forum.later(days=1)
    forum.tick()
    as_of = forum.now
    claims = [(history.read(claim), room) for claim, room in history.claims]
    verifiers_of = defaultdict(set, {"*": {history.identity("vic"), history.identity("val")},
                                     history.rooms["lab"]: {history.identity("rho")}})
    for name in ("ann", "ben", "cat", "vic", "val", "rho"):
        line = history.identity(name)
        record = forum.record(history.mod, line)
        assert record == {**forum.record(history.agents[name]), "computed_at": record["computed_at"]}
        check_scope(record["global"], forum.outcomes(history.mod, line, limit=50), line, claims, verifiers_of, as_of,
                    as_of - history.born)
        for room in history.rooms.values():
            in_room = [(claim, where) for claim, where in claims if where == room]
            scope = record["rooms"].get(room)
            if scope is None:
                outcomes, pending = raw_outcomes(in_room, verifiers_of, as_of)
                assert not record_of(line, outcomes, as_of)[3] and not pending[line]
                continue
            check_scope(scope, forum.outcomes(history.mod, line, room=room, limit=50), line, in_room,
                        verifiers_of, as_of, as_of - history.born)


@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.tuples(st.lists(st.tuples(GAPS, ASSERT), min_size=2, max_size=5),
                       st.lists(st.tuples(GAPS, STEPS), min_size=6, max_size=14)).map(lambda parts: parts[0] + parts[1]))
def test_the_served_record_is_the_formula_of_section_21_over_any_history(steps, time_machine, make_token,
                                                                         make_moderator):
    with transaction.atomic():
        forum = Forum(time_machine, make_token, make_moderator)
        history = History(forum)
        for gap, step in steps:
            forum.later(minutes=gap)
            history.apply(step)
        check_every_record(history)
        transaction.set_rollback(True)
