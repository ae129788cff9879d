"""The policy parley.record.v1 (Parley v1 §21), rule by rule, on plain facts: no database."""
from datetime import datetime, timedelta, timezone

import pytest

from reputation.policy import Act, ClaimFacts, MarkFacts, Parameters, record, scopes, wilson_lower_bound

T0 = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)
P = Parameters()
DIGEST = "a" * 64


def day(n, hours=0):
    return T0 + timedelta(days=n, hours=hours)


class History:
    """Builds claims the way §10 moves them, numbering events in order."""

    def __init__(self):
        self.event = 0
        self.number = 0

    def act(self, kind, identity, at, **flags):
        self.event += 1
        return Act(kind=kind, identity=identity, at=at, event=self.event, **flags)

    def claim(self, asserter, state, acts=(), room=1, digest=None, valid_until=None, thread=None):
        self.number += 1
        return ClaimFacts(number=self.number, thread=thread or self.number, room=room,
                          statement_sha256=digest or f"{self.number:064x}", asserter=asserter, state=state,
                          valid_until=valid_until, acts=tuple(acts))

    def verified(self, asserter, verifier="v", at=T0, attesters=(), **kwargs):
        acts = [self.act("attest", who, at) for who in attesters or ("helper",)]
        acts.append(self.act("verify", verifier, at, seals=True))
        return self.claim(asserter, "verified", acts, **kwargs)


def outcomes_of(rec):
    return [(o.role, o.outcome, o.weight, o.counterparty) for o in rec.outcomes]


def now_for(*claims):
    return max(act.at for claim in claims for act in claim.acts) + timedelta(days=1)


def test_a_verified_claim_counts_sealed_for_its_asserter_with_the_sealing_line_as_counterparty():
    h = History()
    claim = h.verified("alice", verifier="ver")
    rec = record("alice", [claim], T0, P)
    assert outcomes_of(rec) == [("asserter", "sealed", 1.0, "ver")]
    assert rec.outcomes[0].event == f"ev_{claim.acts[-1].event}" and rec.outcomes[0].claim == "cl_1"
    assert rec.score.S == 1.0 and rec.score.F == 0.0


def test_an_attester_of_a_verified_claim_counts_attest_held():
    h = History()
    claim = h.verified("alice", verifier="ver", attesters=("bob",))
    assert outcomes_of(record("bob", [claim], T0, P)) == [("attester", "attest_held", 1.0, "ver")]


def test_unverified_and_supported_claims_are_pending_and_count_nothing():
    h = History()
    unverified = h.claim("alice", "unverified")
    supported = h.claim("alice", "supported", [h.act("attest", "bob", T0)])
    rec = record("alice", [unverified, supported], T0, P)
    assert rec.outcomes == [] and rec.pending == 2
    assert record("bob", [supported], T0, P).pending == 1


def test_expired_claims_are_neutral():
    h = History()
    claim = h.verified("alice", valid_until=day(2))
    assert len(record("alice", [claim], day(1), P).outcomes) == 1
    later = record("alice", [claim], day(3), P)
    assert later.outcomes == [] and later.pending == 0


def test_a_record_says_when_an_expiry_will_change_it():
    h = History()
    claim = h.verified("alice", valid_until=day(2))
    assert record("alice", [claim], day(1), P).changes_at == day(2)


def test_superseded_claims_are_neutral():
    h = History()
    claim = h.claim("alice", "superseded", [h.act("attest", "bob", T0), h.act("verify", "v", T0, seals=True)])
    assert record("alice", [claim], T0, P).outcomes == []
    assert record("alice", [claim], T0, P).pending == 0


def test_a_refutation_by_an_ordinary_line_holds_only_after_hold_days():
    h = History()
    claim = h.claim("alice", "refuted", [h.act("refute", "bob", T0)])
    waiting = record("alice", [claim], day(13), P)
    assert waiting.outcomes == [] and waiting.pending == 1 and waiting.changes_at == day(14)
    held = record("alice", [claim], day(14), P)
    assert outcomes_of(held) == [("asserter", "refuted", 1.0, "bob")]


@pytest.mark.parametrize("flags, refuter", [({"by_sealer": True}, "carol"), ({}, "human:root")])
def test_a_refutation_by_the_human_a_verify_line_or_a_room_verifier_holds_at_once(flags, refuter):
    h = History()
    claim = h.claim("alice", "refuted", [h.act("refute", refuter, T0, **flags)])
    assert outcomes_of(record("alice", [claim], T0, P)) == [("asserter", "refuted", 1.0, refuter)]


def test_a_held_refutation_of_a_verified_claim_weighs_two_and_its_sealed_no_longer_counts():
    h = History()
    claim = h.claim("alice", "refuted", [h.act("attest", "bob", T0), h.act("verify", "ver", T0, seals=True),
                                         h.act("refute", "carol", day(1), by_sealer=True)])
    assert outcomes_of(record("alice", [claim], day(1), P)) == [("asserter", "refuted", 2.0, "carol")]


def test_an_attester_of_a_claim_whose_refutation_held_counts_attest_failed():
    h = History()
    claim = h.claim("alice", "refuted", [h.act("attest", "bob", T0), h.act("refute", "carol", T0, by_sealer=True)])
    assert outcomes_of(record("bob", [claim], T0, P)) == [("attester", "attest_failed", 1.0, "carol")]


def test_a_refuter_whose_refutation_of_a_verified_claim_held_counts_caught_against_the_sealing_line():
    h = History()
    claim = h.claim("alice", "refuted", [h.act("attest", "bob", T0), h.act("verify", "ver", T0, seals=True),
                                         h.act("refute", "carol", day(1))])
    assert record("carol", [claim], day(2), P).outcomes == []
    assert outcomes_of(record("carol", [claim], day(15), P)) == [("refuter", "caught", 1.0, "ver")]


def test_refuting_an_unverified_claim_earns_the_refuter_nothing():
    h = History()
    claim = h.claim("alice", "refuted", [h.act("refute", "carol", T0, by_sealer=True)])
    assert record("carol", [claim], T0, P).outcomes == []


def test_a_line_refuting_its_own_claim_counts_retracted_at_a_quarter():
    h = History()
    claim = h.claim("alice", "refuted", [h.act("attest", "bob", T0), h.act("refute", "alice", T0)])
    assert outcomes_of(record("alice", [claim], T0, P)) == [("asserter", "retracted", 0.25, "alice")]
    assert record("bob", [claim], day(30), P).outcomes == []  # nobody else's refutation held


def _overturn(h, refuter="carol", sealer="ver", overturner_state="verified", seal_day=2, room=1):
    first = h.claim("alice", "refuted", [h.act("refute", refuter, day(1))], digest=DIGEST, room=1)
    acts = [h.act("attest", "bob", day(seal_day)), h.act("verify", sealer, day(seal_day), seals=True)]
    if overturner_state == "refuted":
        acts.append(h.act("refute", "dave", day(seal_day + 1), by_sealer=True))
    second = h.claim("erin", overturner_state, acts, digest=DIGEST, room=room)
    return first, second


def test_a_refutation_is_overturned_by_a_later_verified_claim_with_the_same_statement_in_the_same_room():
    h = History()
    first, second = _overturn(h)
    claims = [first, second]
    assert outcomes_of(record("carol", claims, day(30), P)) == [("refuter", "overturned", 1.0, "ver")]
    assert record("alice", claims, day(30), P).outcomes == []  # the asserter's refuted no longer counts


def test_an_overturn_needs_the_same_room():
    h = History()
    first, second = _overturn(h, room=2)
    assert outcomes_of(record("alice", [first, second], day(30), P)) == [("asserter", "refuted", 1.0, "carol")]


def test_no_overturn_when_a_sealing_line_is_the_refuter():
    h = History()
    first, second = _overturn(h, sealer="carol")
    assert outcomes_of(record("alice", [first, second], day(30), P)) == [("asserter", "refuted", 1.0, "carol")]


def test_an_overturn_must_be_sealed_after_the_refutation():
    h = History()
    second = h.claim("erin", "verified", [h.act("attest", "bob", T0), h.act("verify", "ver", T0, seals=True)],
                     digest=DIGEST)
    first = h.claim("alice", "refuted", [h.act("refute", "carol", day(1))], digest=DIGEST)
    assert outcomes_of(record("alice", [first, second], day(30), P)) == [("asserter", "refuted", 1.0, "carol")]


def test_an_overturn_reverses_itself_when_the_overturning_claim_is_refuted_in_turn():
    h = History()
    first, second = _overturn(h, overturner_state="refuted")
    assert outcomes_of(record("alice", [first, second], day(30), P)) == [("asserter", "refuted", 1.0, "carol")]
    assert record("carol", [first, second], day(30), P).outcomes == []


def test_the_nth_outcome_with_the_same_counterparty_weighs_one_nth():
    h = History()
    claims = [h.verified("alice", verifier="ver", at=day(0, hours=i)) for i in range(3)]
    rec = record("alice", claims, day(0, hours=2), P)
    weights = [o.weight for o in rec.outcomes]
    assert weights[0] == pytest.approx(1 * 2 ** (-(2 / 24) / 180), abs=1e-6)
    assert weights[1] == pytest.approx(0.5 * 2 ** (-(1 / 24) / 180), abs=1e-6)
    assert weights[2] == pytest.approx(1 / 3, abs=1e-6)


def test_distinct_counterparties_each_weigh_fully():
    h = History()
    claims = [h.verified("alice", verifier=f"ver{i}") for i in range(3)]
    assert [o.weight for o in record("alice", claims, T0, P).outcomes] == [1.0, 1.0, 1.0]


def test_weights_decay_with_a_half_life_measured_to_the_newest_counted_event():
    h = History()
    old = h.verified("alice", verifier="v1", at=T0)
    new = h.verified("alice", verifier="v2", at=day(180))
    rec = record("alice", [old, new], day(400), P)  # evaluated later: decay is still measured to day 180
    assert rec.as_of == day(180)
    assert [o.weight for o in rec.outcomes] == [0.5, 1.0]


def test_outcomes_older_than_the_window_drop_out():
    h = History()
    old = h.verified("alice", verifier="v1", at=T0)
    new = h.verified("alice", verifier="v2", at=day(731))
    rec = record("alice", [old, new], day(731), P)
    assert [o.claim for o in rec.outcomes] == [f"cl_{new.number}"]


def test_diversity_counts_only_outcomes_within_the_window():
    h = History()
    claims = [h.verified("alice", verifier="ver", at=T0), h.verified("alice", verifier="ver", at=day(731))]
    assert [o.weight for o in record("alice", claims, day(731), P).outcomes] == [1.0]


def test_success_weight_is_capped_per_line_per_utc_day():
    h = History()
    claims = [h.verified("alice", verifier=f"ver{i}", at=day(0, hours=1)) for i in range(12)]
    claims.append(h.verified("alice", verifier="next-day", at=day(1, hours=1)))
    rec = record("alice", claims, day(1), P)
    first_day = [o.weight for o in rec.outcomes if o.at < day(1)]
    decayed = 2 ** (-1 / 180)
    assert sum(first_day) == pytest.approx(10 * decayed, abs=1e-5)
    assert first_day[-2:] == [0.0, 0.0]
    assert rec.outcomes[-1].weight == 1.0


def test_the_daily_cap_counts_utc_days():
    h = History()
    cet = timezone(timedelta(hours=1))
    at = datetime(2026, 1, 2, 0, 30, tzinfo=cet)  # 2026-01-01 23:30 UTC: still the first UTC day
    claims = [h.verified("alice", verifier=f"ver{i}", at=day(0, hours=1)) for i in range(10)]
    claims.append(h.verified("alice", verifier="late", at=at))
    assert record("alice", claims, day(2), P).outcomes[-1].weight == 0.0


def test_the_daily_cap_limits_successes_only():
    h = History()
    claims = [h.verified("alice", verifier=f"ver{i}", at=T0) for i in range(10)]
    claims.append(h.claim("alice", "refuted", [h.act("refute", "carol", T0, by_sealer=True)]))
    rec = record("alice", claims, T0, P)
    assert rec.score.S == 10.0 and rec.score.F == 1.0


def test_the_score_is_the_one_sided_wilson_lower_bound():
    S, F, z = 8.0, 2.0, 1.645
    n, p = S + F, S / (S + F)
    expected = (p + z * z / (2 * n) - z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5)) / (1 + z * z / n)
    assert wilson_lower_bound(S, F, z) == pytest.approx(expected)
    assert wilson_lower_bound(0, 0, z) == 0.0


def test_a_record_without_outcomes_scores_zero_with_a_uniform_prior():
    score = record("alice", [], T0, P).score
    assert (score.score, score.alpha, score.beta, score.mean, score.n) == (0.0, 1.0, 1.0, 0.5, 0.0)


def test_alpha_beta_and_mean_follow_the_weights():
    h = History()
    claims = [h.verified("alice", verifier=f"v{i}") for i in range(3)]
    claims.append(h.claim("alice", "refuted", [h.act("refute", "carol", T0, by_sealer=True)]))
    score = record("alice", claims, T0, P).score
    assert (score.alpha, score.beta) == (4.0, 2.0)
    assert score.mean == pytest.approx(4 / 6, abs=1e-6)
    assert score.score == pytest.approx(wilson_lower_bound(3, 1, 1.645), abs=1e-6)


def test_a_line_is_new_below_min_outcomes():
    h = History()
    claims = [h.verified("alice", verifier=f"v{i}") for i in range(4)]
    assert record("alice", claims, T0, P).score.tier == "new"
    claims.append(h.verified("alice", verifier="v4"))
    assert record("alice", claims, T0, P).score.tier == "established"


def test_a_line_is_new_while_its_token_is_younger_than_new_line_days():
    h = History()
    claims = [h.verified("alice", verifier=f"v{i}") for i in range(8)]
    young = record("alice", claims, T0, P, line_since=T0 - timedelta(days=6))
    assert young.score.tier == "new" and young.changes_at == T0 + timedelta(days=1)
    assert record("alice", claims, T0, P, line_since=T0 - timedelta(days=7)).score.tier == "established"


def test_a_line_below_the_established_score_is_on_probation():
    h = History()
    claims = [h.verified("alice", verifier=f"v{i}") for i in range(3)]
    claims += [h.claim("alice", "refuted", [h.act("refute", f"r{i}", T0, by_sealer=True)]) for i in range(3)]
    score = record("alice", claims, T0, P).score
    assert score.score < 0.6 and score.tier == "probation"


def test_each_room_has_its_own_record_and_global_covers_all():
    h = History()
    claims = [h.verified("alice", verifier="ver", room=1), h.verified("alice", verifier="ver", room=2)]
    found = scopes("alice", claims, T0, P)
    assert set(found) == {"global", "rm_1", "rm_2"}
    assert [o.weight for o in found["global"].outcomes] == [1.0, 0.5]
    assert [o.weight for o in found["rm_2"].outcomes] == [1.0]  # no room's diversity borrowed into another


def test_proposals_count_only_when_the_input_is_on():
    mark = MarkFacts(event=9, thread=3, room=1, proposer="alice", decided_by="mod", decision="confirm", at=T0)
    dismissed = MarkFacts(event=10, thread=4, room=1, proposer="alice", decided_by="human:root",
                          decision="dismiss", at=T0)
    assert record("alice", [], T0, P, marks=[mark, dismissed]).outcomes == []
    on = Parameters(inputs=("claims", "proposals"))
    rec = record("alice", [], T0, on, marks=[mark, dismissed])
    assert outcomes_of(rec) == [("proposer", "confirmed", 1.0, "mod"), ("proposer", "dismissed", 1.0, "human:root")]
    assert rec.outcomes[0].claim is None


def test_a_line_confirming_its_own_proposal_earns_nothing():
    mark = MarkFacts(event=9, thread=3, room=1, proposer="alice", decided_by="alice", decision="confirm", at=T0)
    assert record("alice", [], T0, Parameters(inputs=("claims", "proposals")), marks=[mark]).outcomes == []


def test_attestations_among_lines_without_a_verifier_earn_nothing():
    h = History()
    claims = [h.claim(f"sybil{i}", "supported", [h.act("attest", f"sybil{j}", T0) for j in range(5) if j != i])
              for i in range(5)]
    for i in range(5):
        rec = record(f"sybil{i}", claims, day(100), P)
        assert rec.outcomes == [] and rec.score.score == 0.0


def test_outcomes_are_listed_in_event_order():
    h = History()
    early = h.verified("alice", verifier="v2", at=day(1))
    late = h.verified("alice", verifier="v1", at=day(2))
    rec = record("alice", [late, early], day(3), P)
    assert [o.claim for o in rec.outcomes] == [f"cl_{early.number}", f"cl_{late.number}"]


def test_the_same_facts_give_the_same_record():
    h = History()
    claims = [h.verified("alice", verifier=f"v{i % 3}", at=day(i)) for i in range(20)]
    assert record("alice", claims, day(40), P) == record("alice", list(reversed(claims)), day(40), P)
