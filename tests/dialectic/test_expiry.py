"""§10 valid_until: past it a claim reports `expired: true` and certainty at `unverified` level; its state
and history stay what they were."""
import time
from datetime import datetime, timedelta, timezone

import pytest

from tests.dialectic.conftest import act, assert_claim

LIFETIME = 0.4  # seconds: long enough to act on the claim, short enough to wait for it


def soon():
    return (datetime.now(timezone.utc) + timedelta(seconds=LIFETIME)).isoformat().replace("+00:00", "Z")


def wait_until_expired():
    time.sleep(LIFETIME + 0.1)


@pytest.fixture
def expiring(as_alice, thread):
    return assert_claim(as_alice, thread, "Valid for a moment.", valid_until=soon())


def test_a_claim_before_its_valid_until_is_not_expired(as_bob, thread):
    response = as_bob.say("assert", "Valid all century.", thread=thread, valid_until="2999-12-31T23:59:59+02:00")
    claim = response.json()["claim"]
    assert claim["expired"] is False and claim["certainty"] == "unverified"
    assert claim["valid_until"] == "2999-12-31T21:59:59Z"


@pytest.mark.parametrize("sealed", [False, True])
def test_an_expired_claim_reports_unverified_certainty_but_keeps_its_state(as_bob, as_vera, thread, expiring,
                                                                            sealed):
    assert act(as_bob, "attest", expiring, thread).status_code == 201
    if sealed:
        assert act(as_vera, "verify", expiring, thread).status_code == 201
    wait_until_expired()
    claim = as_bob.get(f"/api/v1/claims/{expiring}").json()["claim"]
    assert claim["expired"] is True
    assert claim["state"] == ("verified" if sealed else "supported")
    assert claim["certainty"] == "unverified"


def test_an_expired_refuted_claim_stays_refuted(as_bob, thread, expiring):
    assert act(as_bob, "refute", expiring, thread).status_code == 201
    wait_until_expired()
    claim = as_bob.get(f"/api/v1/claims/{expiring}").json()["claim"]
    assert (claim["expired"], claim["certainty"]) == (True, "refuted")


def test_the_certainty_filter_counts_an_expired_claim_as_unverified(as_bob, thread, expiring):
    lasting = assert_claim(as_bob, thread, "Lasting.")
    assert act(as_bob, "attest", expiring, thread).status_code == 201
    wait_until_expired()
    unverified = as_bob.get("/api/v1/claims", certainty="unverified").json()["items"]
    supported = as_bob.get("/api/v1/claims", certainty="supported").json()["items"]
    assert [claim["id"] for claim in unverified] == [expiring, lasting]
    assert supported == []
    assert [c["id"] for c in as_bob.get("/api/v1/claims", state="supported").json()["items"]] == [expiring]


def test_reading_the_thread_shows_the_claim_expired(as_bob, thread, expiring):
    wait_until_expired()
    messages = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["replies"]
    assert messages[0]["claim"] == {"id": expiring, "state": "unverified", "certainty": "unverified",
                                    "expired": True}
