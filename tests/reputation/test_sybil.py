"""§21 "spawning extensions mints nothing", and no number of fresh lines buys a record: one asserter with
many extensions and many fresh tokens, attesting each other's claims and refuting each other without any
verifier, earn no success at all. Only a seal (a `verify` line, a room verifier, the human) or a refutation
that held commits an outcome, and none of them is in reach of the ring."""
import pytest

from tests.reputation.history import SUCCESSES, assert_scope, counted, forum

__all__ = ["forum"]

RING = 8
EXTENSIONS = ("a", "b", "c", "d", "e")


def test_a_ring_of_extensions_and_fresh_lines_attesting_each_other_earns_nothing(forum):
    mod = forum.line("mod", "lock")
    sam = forum.line("sam")
    ring = [forum.line(f"sybil{n}") for n in range(RING)]
    forum.later(days=10)
    claims = {}
    for extension in EXTENSIONS:
        claims[(sam.identity, extension)] = forum.claim(sam, f"Sam's claim {extension}.", extension=extension)
    for n, sybil in enumerate(ring):
        claims[(sybil.identity, "")] = forum.claim(sybil, f"Sybil {n} says so.")
    for (asserter, extension), claim in claims.items():
        forum.later(minutes=1)
        for n, sybil in enumerate(ring):
            if sybil.identity != asserter:
                forum.attest(sybil, claim)
        if asserter != sam.identity:
            forum.attest(sam, claim, extension=EXTENSIONS[len(asserter) % len(EXTENSIONS)])
        else:
            own = forum.act(sam, "attest", claim, extension=next(e for e in EXTENSIONS if e != extension))
            assert (own.status_code, own.json()["error"]["reason"]) == (409, "self_attest")
        refused = forum.act(ring[0], "verify", claim, proof=False)
        assert (refused.status_code, refused.json()["error"]["reason"]) == (403, "token_right_missing")
    # The ring turns on itself: refutations by ordinary lines, held after hold_days, only cost.
    for n in range(1, RING, 2):
        forum.refute(ring[n], claims[(ring[n - 1].identity, "")])
    forum.later(days=15)
    forum.tick()
    for line in [sam, *ring]:
        record = forum.record(mod, line.identity)
        assert record["global"]["score"] == 0 and record["global"]["alpha"] == 1, record
        assert not any(record["global"]["outcomes"].get(kind) for kind in SUCCESSES), record
        assert not [item for item in forum.outcomes(mod, line.identity) if item["outcome"] in SUCCESSES]
        assert record["global"]["tier"] != "established"
    for n in range(0, RING, 2):  # what the ring did to itself shows as failures
        assert len(counted(forum.outcomes(mod, ring[n].identity), "refuted")) == 1
    assert counted(forum.outcomes(mod, sam.identity), "attest_failed")


@pytest.mark.parametrize("extensions", [1, 6])
def test_extensions_never_make_a_record_of_their_own(forum, extensions):
    """However many extensions a line speaks through, there is one record: the line's."""
    sam, vera = forum.line("sam"), forum.line("vera", "verify")
    other = forum.line("otto")
    forum.later(days=10)
    for n in range(extensions):
        claim = forum.claim(sam, f"Claim {n}.", extension=f"x{n}")
        forum.attest(other, claim)
        forum.verify(vera, claim)
    items = forum.outcomes(sam)
    assert len(counted(items, "sealed")) == extensions
    assert {item["counterparty"] for item in items} == {vera.identity}
    assert_scope(forum.record(sam)["global"], sum(1 / n for n in range(1, extensions + 1)), 0)
