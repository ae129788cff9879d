"""§21 parley.record.v1, one test per rule, black-box: histories built through the REST door at moments the
test chooses, the record read back as `read_reputation` and `list_outcomes` answer it, and every number
checked against §21's formula worked by hand (tests.reputation.history). Readings of the text where it
leaves a choice are stated in the docstring of the test that depends on them."""
from datetime import datetime, timedelta

import pytest

from tests.reputation.history import (HALF_LIFE_DAYS, ROLES, assert_scope, close, close_sum, counted, decay, forum, sums,
                                      wilson)

__all__ = ["forum"]  # the fixture, imported for the tests below

LINES_AGE = timedelta(days=10)
ROLE_OF = {(role, outcome) for outcome, role in ROLES.items()}  # older than new_line_days, so a tier is decided by its numbers


@pytest.fixture
def cast(forum):
    """alice asserts, bob attests, carol refutes as an ordinary line, vera and victor hold `verify`, mod
    holds `lock`; then the clock moves past new_line_days."""
    lines = {"alice": forum.line("alice"), "bob": forum.line("bob"), "carol": forum.line("carol"),
             "vera": forum.line("vera", "verify"), "victor": forum.line("victor", "verify"),
             "mod": forum.line("mod", "lock")}
    forum.later(days=LINES_AGE.days)
    return type("Cast", (), lines)


def sealed_claim(forum, cast, statement="The sky is blue.", sealer=None, room=None, asserter=None, **fields):
    claim = forum.claim(asserter or cast.alice, statement, room=room, **fields)
    forum.attest(cast.bob, claim)
    forum.verify(sealer or cast.vera, claim)
    return claim


def event_of(reader, claim, label, to_state):
    """The id of the claim's event `label` that moved it to `to_state`, as list_events answers it."""
    items = reader.get(f"/api/v1/threads/{claim.thread}/events", limit=200).json()["items"]
    return next(item["id"] for item in items
                if item["claim"] == claim.id and item["label"] == label and item["to_state"] == to_state)


def at(item):
    return datetime.fromisoformat(item["at"].replace("Z", "+00:00"))


def only(items, outcome):
    [item] = counted(items, outcome)
    return item


# Outcomes (the table).

def test_sealed_is_one_success_for_the_asserter_once_the_claim_is_verified(forum, cast):
    claim = sealed_claim(forum, cast)
    record = forum.record(cast.alice)
    assert record["identity"] == cast.alice.identity and record["policy"] == "parley.record.v1"
    assert record["global"]["outcomes"].get("sealed") == 1
    assert_scope(record["global"], 1, 0)
    item = only(forum.outcomes(cast.alice), "sealed")
    assert (item["role"], item["claim"], item["thread"], item["room"]) == ("asserter", claim.id, claim.thread, "rm_1")
    assert (item["counterparty"], at(item)) == (cast.vera.identity, forum.now) and close(item["weight"], 1)
    assert item["event"] == event_of(cast.alice, claim, "verify", "verified")


def test_attest_held_is_one_success_for_each_attester_of_a_verified_claim(forum, cast):
    claim = forum.claim(cast.alice, "Water boils at 100 °C at sea level.")
    forum.attest(cast.bob, claim)
    forum.attest(cast.carol, claim)
    forum.verify(cast.vera, claim)
    for attester in (cast.bob, cast.carol):
        item = only(forum.outcomes(attester), "attest_held")
        assert (item["role"], item["claim"], item["counterparty"]) == ("attester", claim.id, cast.vera.identity)
        assert_scope(forum.record(attester)["global"], 1, 0)


def test_refuted_is_one_failure_for_the_asserter_when_another_line_refuted_and_it_held(forum, cast):
    claim = forum.claim(cast.alice, "The moon is made of cheese.")
    forum.refute(cast.vera, claim)  # a line with `verify`: held at once
    record = forum.record(cast.alice)
    assert record["global"]["outcomes"].get("refuted") == 1 and not record["global"]["outcomes"].get("sealed")
    assert_scope(record["global"], 0, 1)
    item = only(forum.outcomes(cast.alice), "refuted")
    assert (item["role"], item["counterparty"]) == ("asserter", cast.vera.identity) and close(item["weight"], 1)
    assert item["event"] == event_of(cast.alice, claim, "refute", "refuted")


def test_refuted_counts_two_when_the_claim_had_been_verified_and_its_sealed_no_longer_counts(forum, cast):
    claim = sealed_claim(forum, cast)
    forum.later(hours=1)
    forum.refute(cast.victor, claim)
    record = forum.record(cast.alice)
    assert record["global"]["outcomes"].get("refuted") == 1 and not record["global"]["outcomes"].get("sealed")
    assert_scope(record["global"], 0, 2)
    items = forum.outcomes(cast.alice)
    assert [item["outcome"] for item in items] == ["refuted"] and close(items[0]["weight"], 2)


def test_retracted_is_a_quarter_failure_when_the_line_refuted_its_own_claim(forum, cast):
    """Reading: a retraction counts at once (the table names no hold for it, and nobody else's judgement is
    awaited); it is no refutation "by another line", so it is never overturned."""
    claim = forum.claim(cast.alice, "I miscounted.")
    forum.refute(cast.alice, claim)
    record = forum.record(cast.alice)
    assert record["global"]["outcomes"].get("retracted") == 1 and not record["global"]["outcomes"].get("refuted")
    assert_scope(record["global"], 0, 0.25)
    assert close(only(forum.outcomes(cast.alice), "retracted")["weight"], 0.25)


def test_attest_failed_is_one_failure_for_each_attester_when_the_refutation_held(forum, cast):
    claim = forum.claim(cast.alice, "Two plus two is five.")
    forum.attest(cast.bob, claim)
    forum.refute(cast.vera, claim)
    item = only(forum.outcomes(cast.bob), "attest_failed")
    assert (item["role"], item["counterparty"]) == ("attester", cast.vera.identity) and close(item["weight"], 1)
    assert_scope(forum.record(cast.bob)["global"], 0, 1)


def test_an_attesters_attest_held_no_longer_counts_once_the_verified_claims_refutation_held(forum, cast):
    """Reading: like the asserter's `sealed`, an attester's `attest_held` counts while the claim is
    `verified` (§21 evaluates on the current states); once its refutation held it is `attest_failed`."""
    claim = sealed_claim(forum, cast)
    forum.refute(cast.victor, claim)
    assert [item["outcome"] for item in forum.outcomes(cast.bob)] == ["attest_failed"]
    assert_scope(forum.record(cast.bob)["global"], 0, 1)


def test_caught_is_one_success_for_the_refuter_of_a_verified_claim_when_it_held(forum, cast):
    claim = sealed_claim(forum, cast)
    forum.refute(cast.victor, claim)
    item = only(forum.outcomes(cast.victor), "caught")
    assert (item["role"], item["claim"]) == ("refuter", claim.id)
    assert item["counterparty"] == cast.vera.identity  # the pair: the refuter and the sealing line
    assert_scope(forum.record(cast.victor)["global"], 1, 0)


def test_refuting_a_claim_that_was_never_verified_catches_nothing(forum, cast):
    claim = forum.claim(cast.alice, "Unchecked.")
    forum.refute(cast.victor, claim)
    assert forum.outcomes(cast.victor) == []
    assert_scope(forum.record(cast.victor)["global"], 0, 0)


def test_overturned_is_one_failure_for_the_refuter_and_the_asserters_refuted_no_longer_counts(forum, cast):
    """Reading: the `overturned` outcome is made by the overturning claim's seal, so its `at` (and its
    age) is that seal's; the refuter's failure is not diversified (§21 names no pair for it)."""
    first = forum.claim(cast.alice, "The bridge holds ten tonnes.")
    forum.refute(cast.carol, first)
    refuted_at = forum.now
    forum.later(days=15)
    forum.tick()
    assert [item["outcome"] for item in forum.outcomes(cast.alice)] == ["refuted"]
    forum.later(days=1)
    again = sealed_claim(forum, cast, "The bridge holds ten tonnes.")
    assert [item["outcome"] for item in forum.outcomes(cast.alice)] == ["sealed"]
    item = only(forum.outcomes(cast.carol), "overturned")
    assert (item["role"], item["claim"]) == ("refuter", first.id) and close(item["weight"], 1)
    assert_scope(forum.record(cast.carol)["global"], 0, 1)
    assert_scope(forum.record(cast.alice)["global"], 1, 0)
    assert at(item) == forum.now > refuted_at and again.id != first.id


def test_an_overturn_reverses_itself_when_the_overturning_claim_is_refuted_in_turn(forum, cast):
    """§21: "if the overturning claim is refuted in turn, the first refutation holds again": carol's
    `overturned` goes, alice's first `refuted` is back, and the second claim's refutation counts 2."""
    first = forum.claim(cast.alice, "The bridge holds ten tonnes.")
    forum.refute(cast.carol, first)
    t_first = forum.now
    forum.later(days=15)
    again = sealed_claim(forum, cast, "The bridge holds ten tonnes.")
    forum.later(days=1)
    forum.refute(cast.victor, again)
    t_second = forum.now
    assert forum.outcomes(cast.carol) == []
    items = forum.outcomes(cast.alice)
    assert sorted((item["claim"], item["outcome"]) for item in items) == sorted(
        [(first.id, "refuted"), (again.id, "refuted")])
    expected_failure = 1 * decay(t_second - t_first) + 2
    assert_scope(forum.record(cast.alice)["global"], 0, expected_failure)
    assert only(forum.outcomes(cast.victor), "caught")["claim"] == again.id


def test_a_seal_by_the_refuter_itself_does_not_overturn_its_refutation(forum, cast):
    first = forum.claim(cast.alice, "The bridge holds ten tonnes.")
    forum.refute(cast.vera, first)
    forum.later(days=1)
    sealed_claim(forum, cast, "The bridge holds ten tonnes.", sealer=cast.vera)
    assert not counted(forum.outcomes(cast.vera), "overturned")
    assert sorted(item["outcome"] for item in forum.outcomes(cast.alice)) == ["refuted", "sealed"]


def test_only_a_claim_of_the_same_statement_in_the_same_room_sealed_after_the_refutation_overturns_it(forum, cast):
    elsewhere = forum.room("elsewhere")
    sealed_claim(forum, cast, "The bridge holds ten tonnes.")  # sealed before the refutation
    forum.later(hours=1)
    first = forum.claim(cast.alice, "The bridge holds ten tonnes.")
    forum.refute(cast.vera, first)
    forum.later(hours=1)
    sealed_claim(forum, cast, "The bridge holds ten tonnes.", room=elsewhere, sealer=cast.victor)
    sealed_claim(forum, cast, "The bridge holds ten tonnes!", sealer=cast.victor)
    assert not counted(forum.outcomes(cast.vera), "overturned")
    assert counted(forum.outcomes(cast.alice), "refuted")


def test_proposals_are_not_an_input_by_default(forum, cast):
    manifest = cast.alice.get("/api/v1/manifest").json()["profiles"]["reputation"]
    inputs = manifest["inputs"]
    assert not (inputs.get("proposals") if isinstance(inputs, dict) else "proposals" in inputs)
    thread = cast.alice.ask("Shall we decide this?")
    assert cast.alice.say("decide", "done", thread=thread).status_code == 201  # a proposal (§8)
    assert cast.mod.post(f"/api/v1/threads/{thread}/confirm").status_code == 200
    thread = cast.alice.ask("And this one?")
    assert cast.alice.say("decide", "done", thread=thread).status_code == 201
    assert cast.mod.post(f"/api/v1/threads/{thread}/dismiss").status_code == 200
    assert forum.outcomes(cast.alice) == []
    assert_scope(forum.record(cast.alice)["global"], 0, 0)


# Pending and neutral.

def test_unverified_and_supported_claims_are_pending(forum, cast):
    forum.claim(cast.alice, "Unverified.")
    forum.attest(cast.bob, forum.claim(cast.alice, "Supported."))
    quorum = forum.claim(cast.alice, "Supported, one verification of two.", quorum=2)
    forum.attest(cast.bob, quorum)
    forum.verify(cast.vera, quorum)
    record = forum.record(cast.alice)
    assert record["global"]["pending"] == 3
    assert not any(record["global"]["outcomes"].values())
    assert_scope(record["global"], 0, 0)
    assert forum.outcomes(cast.alice) == [] and forum.outcomes(cast.bob) == []
    assert forum.record(cast.bob)["global"]["pending"] == 2  # an attester's stake is pending too


def test_a_claim_whose_refutation_has_not_held_yet_is_pending_for_every_line_with_a_stake(forum, cast):
    """Reading: until it holds (or is overturned) a refutation commits nothing, so the claim is still
    pending for its asserter, its attesters and its refuter."""
    claim = forum.claim(cast.alice, "Contested.")
    forum.attest(cast.bob, claim)
    forum.refute(cast.carol, claim)
    for line in (cast.alice, cast.bob, cast.carol):
        assert forum.record(line)["global"]["pending"] == 1


def test_expired_and_superseded_claims_are_neutral(forum, cast):
    """Expired and superseded claims count neither as an outcome nor as pending. Reading: a sealed claim
    that expires is neutral too (§10: past `valid_until` its certainty drops to `unverified` level)."""
    until = (forum.now + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    expiring = forum.claim(cast.alice, "Valid for an hour.", valid_until=until)
    forum.attest(cast.bob, expiring)
    sealed_claim(forum, cast, "Valid for an hour, and sealed.", valid_until=until)
    old = forum.claim(cast.alice, "Old wording.")
    forum.attest(cast.bob, old)
    forum.supersede(cast.alice, old, "New wording.")
    forum.later(hours=2)
    forum.tick()
    record = forum.record(cast.alice)
    assert record["global"]["pending"] == 1  # the new wording
    assert not any(record["global"]["outcomes"].values())
    assert forum.outcomes(cast.alice) == [] and forum.outcomes(cast.bob) == []


# Held refutations.

def test_a_refutation_by_an_ordinary_line_counts_only_once_hold_days_passed(forum, cast):
    """Reading: the outcome's `at` is its event's time (the refutation); as the newest outcome the line's
    record counts, it is what ages are measured to, so it weighs 1."""
    claim = forum.claim(cast.alice, "Held later.")
    forum.attest(cast.bob, claim)
    refuted_at = forum.now
    forum.refute(cast.carol, claim)
    forum.later(days=13)
    forum.tick()
    assert forum.outcomes(cast.alice) == [] and forum.outcomes(cast.bob) == []
    assert_scope(forum.record(cast.alice)["global"], 0, 0)
    forum.later(days=2)
    forum.tick()
    item = only(forum.outcomes(cast.alice), "refuted")
    assert at(item) == refuted_at and close(item["weight"], 1)
    assert_scope(forum.record(cast.alice)["global"], 0, 1)
    assert counted(forum.outcomes(cast.bob), "attest_failed")


@pytest.mark.parametrize("refuter", ["human", "verify_right", "room_verifier"])
def test_a_refutation_holds_at_once_when_the_refuter_is_the_human_a_line_with_verify_or_a_room_verifier(
        forum, cast, refuter):
    room = forum.room("lab")
    if refuter == "human":
        agent, identity = forum.human(), "human:hannah"
    elif refuter == "verify_right":
        agent, identity = cast.vera, cast.vera.identity
    else:
        forum.appoint(room, cast.carol, "verifier")
        agent, identity = cast.carol, cast.carol.identity
    claim = forum.claim(cast.alice, "Held at once.", room=room)
    forum.refute(agent, claim)
    item = only(forum.outcomes(cast.alice), "refuted")
    assert item["counterparty"] == identity and close(item["weight"], 1)


def test_a_verifier_of_another_room_refutes_as_an_ordinary_line(forum, cast):
    lab, other = forum.room("lab"), forum.room("other")
    forum.appoint(other, cast.carol, "verifier")
    forum.refute(cast.carol, forum.claim(cast.alice, "Held later.", room=lab))
    assert forum.outcomes(cast.alice) == []


# Weights.

def test_diversity_weighs_the_nth_outcome_between_the_same_two_lines_one_over_n(forum, cast):
    """Each pair counts its own n; the moments are a minute apart, so decay is applied to each."""
    moments = []
    for sealer in (cast.vera, cast.vera, cast.victor, cast.vera):
        forum.later(minutes=1)
        sealed_claim(forum, cast, f"Claim sealed at {forum.now}.", sealer=sealer)
        moments.append(forum.now)
    weights = [item["weight"] for item in sorted(forum.outcomes(cast.alice), key=at)]
    expected = [base * decay(forum.now - moment) for base, moment in zip((1, 1 / 2, 1, 1 / 3), moments)]
    assert len(weights) == 4 and all(close(w, e) for w, e in zip(weights, expected)), (weights, expected)
    assert_scope(forum.record(cast.alice)["global"], sum(expected), 0)


def test_diversity_counts_failures_of_the_same_pair_too(forum, cast):
    for n in range(3):
        forum.refute(cast.vera, forum.claim(cast.alice, f"Wrong {n}."))
    weights = sorted((item["weight"] for item in forum.outcomes(cast.alice)), reverse=True)
    assert all(close(w, e) for w, e in zip(weights, (1, 1 / 2, 1 / 3))) and len(weights) == 3


def test_decay_halves_a_weight_every_half_life_days_measured_to_as_of(forum, cast):
    """Reading of §21 ("age measured to the record's as_of (the time of the newest event it counts)"): ages
    are measured to the newest outcome the line's record counts in the scope, so the same events give the
    same numbers whenever they are read, and a served record changes only with the line's own outcomes."""
    sealed_claim(forum, cast)
    forum.later(days=HALF_LIFE_DAYS)
    sealed_claim(forum, cast, "Half a life later.", sealer=forum.line("sealer2", "verify"))
    forum.tick()
    record = forum.record(cast.alice)
    assert_scope(record["global"], 0.5 + 1, 0)
    forum.later(days=30)  # nothing the line's record counts: its numbers stay
    forum.tick()
    assert forum.record(cast.alice)["global"] == record["global"]


def test_outcomes_older_than_window_days_drop_out(forum, cast):
    sealed_claim(forum, cast)
    sealed_at = forum.now
    forum.later(days=729)
    sealed_claim(forum, cast, "Later.", sealer=forum.line("sealer2", "verify"))
    forum.tick()
    assert_scope(forum.record(cast.alice)["global"], decay(forum.now - sealed_at) + 1, 0)
    forum.later(days=2)
    sealed_claim(forum, cast, "Later still.", sealer=forum.line("sealer3", "verify"))
    forum.tick()
    assert len(forum.outcomes(cast.alice)) == 2
    assert_scope(forum.record(cast.alice)["global"], decay(timedelta(days=2)) + 1, 0)


def test_at_most_success_per_day_max_success_weight_counts_per_line_per_utc_day(forum, cast):
    """Twelve seals by twelve lines on one UTC day give 10; one the day before counts on its own day."""
    sealers = [forum.line(f"sealer{n}", "verify") for n in range(12)]
    forum.later(days=10)
    day_before = forum.now.replace(hour=23, minute=59)
    forum.later(seconds=(day_before - forum.now).total_seconds())
    sealed_claim(forum, cast, "The day before.", sealer=sealers[0])
    forum.later(minutes=2)  # 00:01 the next UTC day
    for n, sealer in enumerate(sealers):
        sealed_claim(forum, cast, f"Claim {n} of the day.", sealer=sealer if n else cast.victor)
    record = forum.record(cast.alice)
    expected = decay(timedelta(minutes=2)) + 10
    assert_scope(record["global"], expected, 0)
    items = forum.outcomes(cast.alice)
    assert close_sum(sums(items)[0], items, expected)


def test_the_score_is_the_wilson_lower_bound_and_alpha_beta_mean_count_the_weights(forum, cast):
    verifiers = [forum.line(f"checker{n}", "verify") for n in range(7)]
    forum.later(days=10)
    for n, verifier in enumerate(verifiers):
        sealed_claim(forum, cast, f"True {n}.", sealer=verifier)
    forum.refute(cast.vera, forum.claim(cast.alice, "False."))
    global_ = forum.record(cast.alice)["global"]
    assert close(global_["score"], wilson(7, 1)) and close(global_["score"], 0.5888281744971086)
    assert (global_["alpha"], global_["beta"]) == (8, 2) and close(global_["mean"], 0.8)
    assert global_["tier"] == "probation"


def test_a_line_without_outcomes_scores_zero_with_alpha_and_beta_one(forum, cast):
    record = forum.record(cast.alice)
    assert (record["global"]["score"], record["global"]["alpha"], record["global"]["beta"]) == (0, 1, 1)
    assert close(record["global"]["mean"], 0.5) and record["global"]["tier"] == "new"


# Tiers.

def test_a_line_is_new_while_its_token_is_younger_than_new_line_days(forum):
    alice, bob = forum.line("alice"), forum.line("bob")
    verifiers = [forum.line(f"checker{n}", "verify") for n in range(6)]
    for n, verifier in enumerate(verifiers):
        claim = forum.claim(alice, f"True {n}.")
        forum.attest(bob, claim)
        forum.verify(verifier, claim)
    assert wilson(6, 0) >= 0.6 and forum.record(alice)["global"]["tier"] == "new"
    forum.later(days=8)
    forum.tick()
    assert forum.record(alice)["global"]["tier"] == "established"


def test_a_line_is_new_while_n_is_below_min_outcomes(forum, cast):
    for n in range(4):
        sealed_claim(forum, cast, f"True {n}.", sealer=forum.line(f"checker{n}", "verify"))
    assert forum.record(cast.alice)["global"]["tier"] == "new"


def test_a_line_is_established_at_a_score_of_established_score_and_on_probation_below(forum, cast):
    for n in range(5):
        sealed_claim(forum, cast, f"True {n}.", sealer=forum.line(f"checker{n}", "verify"))
    assert forum.record(cast.alice)["global"]["tier"] == "established"  # wilson(5, 0) = 0.649
    forum.refute(cast.vera, forum.claim(cast.alice, "False."))
    assert forum.record(cast.alice)["global"]["tier"] == "probation"  # wilson(5, 1) = 0.51


# Scopes.

def test_each_room_has_a_scope_of_its_own_claims_and_global_counts_them_all(forum, cast):
    lab = forum.room("lab")
    sealed_claim(forum, cast, "In the default room.")
    forum.later(minutes=1)
    sealed_claim(forum, cast, "In the lab.", room=lab)
    record = forum.record(cast.alice)
    # One sealing line, two rooms: in each room the first outcome of the pair; globally the second is 1/2.
    assert_scope(record["rooms"][lab], 1, 0)
    assert_scope(record["rooms"]["rm_1"], decay(timedelta(minutes=1)), 0)
    assert_scope(record["global"], decay(timedelta(minutes=1)) + 1 / 2, 0)
    assert [item["room"] for item in forum.outcomes(cast.alice, room=lab)] == [lab]


def test_extensions_share_their_lines_record(forum, cast):
    claim = forum.claim(cast.alice, "Said by a helper.", extension="helper")
    other = forum.claim(cast.bob, "Bob's.")
    forum.attest(cast.alice, other, extension="scout")
    forum.verify(cast.vera, other)
    forum.attest(cast.bob, claim, extension="b")
    forum.verify(cast.vera, claim)
    assert forum.act(cast.alice, "attest", forum.claim(cast.alice, "Own."), extension="other").status_code == 409
    record = forum.record(cast.alice)
    assert record["identity"] == cast.alice.identity
    assert record["global"]["outcomes"].get("sealed") == 1 and record["global"]["outcomes"].get("attest_held") == 1
    assert record["global"]["pending"] == 1


# Who reads.

def test_a_line_reads_its_own_record(forum, cast):
    sealed_claim(forum, cast)
    own, named = forum.record(cast.alice, "me"), forum.record(cast.alice, cast.alice.identity)
    assert {**own, "computed_at": None} == {**named, "computed_at": None}
    assert own["identity"] == cast.alice.identity


@pytest.mark.parametrize("reader", ["lock_holder", "human"])
def test_a_lock_holder_and_the_human_read_any_lines_record(forum, cast, reader):
    sealed_claim(forum, cast)
    agent = cast.mod if reader == "lock_holder" else forum.human()
    record = forum.record(agent, cast.alice.identity)
    assert record["identity"] == cast.alice.identity
    assert_scope(record["global"], 1, 0)
    assert counted(forum.outcomes(agent, cast.alice.identity), "sealed")


def test_a_room_moderator_reads_only_the_scopes_of_its_rooms(forum, cast):
    """Reading: a room moderator is shown the room scopes of the rooms it moderates and no `global` scope
    (null), which would hold other rooms' outcomes; list_outcomes lists that room's outcomes only."""
    lab = forum.room("lab")
    forum.appoint(lab, cast.carol, "moderator")
    sealed_claim(forum, cast, "In the default room.")
    sealed_claim(forum, cast, "In the lab.", room=lab, sealer=cast.victor)
    record = forum.record(cast.carol, cast.alice.identity)
    assert set(record["rooms"]) == {lab} and record.get("global") is None
    assert_scope(record["rooms"][lab], 1, 0)
    assert [item["room"] for item in forum.outcomes(cast.carol, cast.alice.identity, room=lab)] == [lab]


def test_any_other_reader_is_refused_token_right_missing_naming_lock(forum, cast):
    sealed_claim(forum, cast)
    forum.settle()
    for path in (f"/api/v1/reputation/{cast.alice.identity}", f"/api/v1/reputation/{cast.alice.identity}/outcomes"):
        response = cast.bob.get(path)
        assert response.status_code == 403, response.content
        error = response.json()["error"]
        assert (error["reason"], error["detail"].get("right")) == ("token_right_missing", "lock")


def test_an_unknown_identity_is_not_found(forum, cast):
    for path in ("/api/v1/reputation/ainotes:nobody", "/api/v1/reputation/ainotes:nobody/outcomes"):
        response = cast.mod.get(path)
        assert response.status_code == 404, response.content
        assert response.json()["error"]["reason"] == "not_found"


def test_a_record_never_includes_outcomes_from_threads_the_reader_may_not_see(forum, cast):
    private = forum.room("backroom", visibility="private")
    for line in (cast.alice, cast.bob, cast.vera):
        forum.add_member(private, line)
    sealed_claim(forum, cast, "Said in the back room.", room=private)
    sealed_claim(forum, cast, "Said in the open.", sealer=cast.victor)
    assert set(forum.record(cast.alice)["rooms"]) >= {private}
    forum.remove_member(private, cast.alice)
    record = forum.record(cast.alice)
    assert private not in record["rooms"]
    assert_scope(record["global"], 1, 0)
    assert [item["room"] for item in forum.outcomes(cast.alice)] == ["rm_1"]
    assert_scope(forum.record(cast.mod, cast.alice.identity)["global"], 2, 0)


def test_list_outcomes_explains_every_number(forum, cast):
    lab = forum.room("lab")
    sealed_claim(forum, cast, "One.")
    forum.later(hours=3)
    sealed_claim(forum, cast, "Two.", room=lab)
    forum.later(days=2)
    forum.refute(cast.victor, sealed_claim(forum, cast, "Three."))
    forum.later(days=3)
    forum.refute(cast.alice, forum.claim(cast.alice, "Four."))
    forum.later(days=20)
    forum.tick()
    record = forum.record(cast.alice)
    items = forum.outcomes(cast.alice)
    successes, failures = sums(items)
    assert close_sum(record["global"]["alpha"], items, 1 + successes)
    assert close_sum(record["global"]["beta"], items, 1 + failures)
    for room, scope in record["rooms"].items():
        in_room = forum.outcomes(cast.alice, room=room)
        successes, failures = sums(in_room)
        assert close_sum(scope["alpha"], in_room, 1 + successes) and close_sum(scope["beta"], in_room, 1 + failures)
    kinds = {outcome: n for outcome, n in record["global"]["outcomes"].items() if n}
    assert kinds == {outcome: len(counted(items, outcome)) for outcome in {item["outcome"] for item in items}}
    events = {item["id"] for thread in {item["thread"] for item in items}
              for item in cast.alice.get(f"/api/v1/threads/{thread}/events", limit=200).json()["items"]}
    assert all(item["event"] in events for item in items)
    assert all((item["role"], item["outcome"]) in ROLE_OF for item in items)


def test_read_reputation_and_list_outcomes_answer_alike_through_rest_and_mcp(forum, cast):
    sealed_claim(forum, cast)
    rest = forum.record(cast.alice, cast.alice.identity)
    mcp = forum.mcp(cast.alice)
    read = mcp.call("read_reputation", {"identity": cast.alice.identity})
    assert read["isError"] is False, read
    assert {**read["structuredContent"], "computed_at": None} == {**rest, "computed_at": None}
    assert {**mcp.call("read_reputation", {})["structuredContent"], "computed_at": None} == {**rest, "computed_at": None}
    listed = mcp.call("list_outcomes", {"identity": cast.alice.identity, "limit": 50})
    assert listed["structuredContent"]["items"] == forum.outcomes(cast.alice)
    refused = forum.mcp(cast.bob).call("read_reputation", {"identity": cast.alice.identity})
    assert refused["isError"] is True
    assert refused["structuredContent"]["error"]["reason"] == "token_right_missing"


def test_the_manifest_publishes_every_parameter(cast):
    profile = cast.alice.get("/api/v1/manifest").json()["profiles"]["reputation"]
    assert (profile["policy"], profile["normative"]) == ("parley.record.v1", False)
    assert {"hold_days": 14, "half_life_days": 180, "window_days": 730, "success_per_day_max": 10,
            "new_line_days": 7, "min_outcomes": 5, "established_score": 0.6}.items() <= profile["parameters"].items()

