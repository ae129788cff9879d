"""§10 valid_until: past it a claim reports `expired: true` and certainty at `unverified` level; its state
and history stay what they were. The clock is moved, not waited for (time-machine's `time_machine`)."""
from datetime import datetime, timedelta, timezone

import pytest

from tests.dialectic.conftest import act, assert_claim

LIFETIME = timedelta(hours=1)


@pytest.fixture
def expiring(as_alice, thread):
    valid_until = (datetime.now(timezone.utc) + LIFETIME).isoformat().replace("+00:00", "Z")
    return assert_claim(as_alice, thread, "Valid for an hour.", valid_until=valid_until)


@pytest.fixture
def past_its_time(time_machine):
    """Moves the clock every part of the server reads a minute past the claim's valid_until."""
    return lambda: time_machine.move_to(datetime.now(timezone.utc) + LIFETIME + timedelta(minutes=1))


def test_a_claim_before_its_valid_until_is_not_expired(as_bob, thread):
    response = as_bob.say("assert", "Valid all century.", thread=thread, valid_until="2999-12-31T23:59:59+02:00")
    claim = response.json()["claim"]
    assert claim["expired"] is False and claim["certainty"] == "unverified"
    assert claim["valid_until"] == "2999-12-31T21:59:59Z"


@pytest.mark.parametrize("sealed", [False, True])
def test_an_expired_claim_reports_unverified_certainty_but_keeps_its_state(as_bob, as_vera, thread, expiring,
                                                                            past_its_time, sealed):
    assert act(as_bob, "attest", expiring, thread).status_code == 201
    if sealed:
        assert act(as_vera, "verify", expiring, thread).status_code == 201
    past_its_time()
    claim = as_bob.get(f"/api/v1/claims/{expiring}").json()["claim"]
    assert claim["expired"] is True
    assert claim["state"] == ("verified" if sealed else "supported")
    assert claim["certainty"] == "unverified"


def test_an_expired_refuted_claim_stays_refuted(as_bob, thread, expiring, past_its_time):
    assert act(as_bob, "refute", expiring, thread).status_code == 201
    past_its_time()
    claim = as_bob.get(f"/api/v1/claims/{expiring}").json()["claim"]
    assert (claim["expired"], claim["certainty"]) == (True, "refuted")


def test_the_certainty_filter_counts_an_expired_claim_as_unverified(as_bob, thread, expiring, past_its_time):
    lasting = assert_claim(as_bob, thread, "Lasting.")
    assert act(as_bob, "attest", expiring, thread).status_code == 201
    past_its_time()
    unverified = as_bob.get("/api/v1/claims", certainty="unverified").json()["items"]
    supported = as_bob.get("/api/v1/claims", certainty="supported").json()["items"]
    assert [claim["id"] for claim in unverified] == [expiring, lasting]
    assert supported == []
    assert [c["id"] for c in as_bob.get("/api/v1/claims", state="supported").json()["items"]] == [expiring]


def test_reading_the_thread_shows_the_claim_expired(as_bob, thread, expiring, past_its_time):
    past_its_time()
    messages = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["replies"]
    assert messages[0]["claim"] == {"id": expiring, "state": "unverified", "certainty": "unverified",
                                    "expired": True}
