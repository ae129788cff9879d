"""§14.1 "Times": `valid_until` is YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM) with an offset from -12:00 to +14:00
and a year 1-9999 in UTC. Anything else is 400 invalid_body naming the field, never a server error."""
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.forum.expect import nothing_stored, refused, world
from tests.mcp_bridge.conftest import McpAgent, refusal

ODD_TIMES = [
    "2999-01-01T00:00:00+16:00",  # beyond +14:00: PostgreSQL's timestamptz refused it (a 500)
    "9999-12-31T23:59:59-23:59",  # year 10000 in UTC: an OverflowError on SQLite (a 500)
    "9999-12-31T23:59:59-01:00",
    "2999-01-01T00:00:00+14:01",
    "2999-01-01T00:00:00-12:01",
    "2999-01-01T00:00:00+05:60",
    "2999-01-01t00:00:00Z",
    "2999-01-01T00:00:00z",
    "2999-01-01 00:00:00Z",
    "2999-01-01T00:00:60Z",
    "2999-02-29T00:00:00Z",
    "٢٩٩٩-01-01T00:00:00Z",
]


@pytest.mark.parametrize("value", ODD_TIMES)
def test_it_refuses_a_valid_until_outside_the_times_of_14_1(value, as_alice, thread):
    with nothing_stored():
        response = as_alice.say("assert", "odd time", thread=thread, valid_until=value)
        refused(response, 400, "invalid_body", field="valid_until")


def test_it_refuses_an_odd_valid_until_over_mcp_as_a_refusal_not_a_fault(alice, thread):
    with nothing_stored():
        error = refusal(McpAgent(alice).call("post", {"kind": "assert", "body": "odd time", "thread": thread,
                                                      "valid_until": "2999-01-01T00:00:00+16:00"}))
        assert (error["status"], error["reason"], error["detail"]["field"]) == (400, "invalid_body", "valid_until")


@pytest.mark.parametrize("value, stored", [
    ("2999-01-01T00:00:00+14:00", "2998-12-31T10:00:00Z"),
    ("2999-01-01T00:00:00-12:00", "2999-01-01T12:00:00Z"),
    ("9999-12-31T11:59:59-12:00", "9999-12-31T23:59:59Z"),
])
def test_it_accepts_a_valid_until_at_the_edges_of_14_1_and_reads_it_in_utc(value, stored, as_alice, thread):
    response = as_alice.say("assert", "edge of time", thread=thread, valid_until=value)
    assert response.status_code == 201, response.json()
    assert response.json()["claim"]["valid_until"] == stored


def digits(width, low, high):
    """Numbers of `width` digits, half of them in low..high and half one step around it."""
    return st.one_of(st.integers(low, high), st.integers(max(low - 1, 0), high + 1)).map(
        lambda number: f"{number:0{width}d}")


OFFSETS = st.one_of(st.sampled_from(["Z", "z", "", "+00:00", "-00:00"]), st.builds(
    "{}{}:{}".format, st.sampled_from("+-"), digits(2, 0, 14), digits(2, 0, 59)))
LOOKS_LIKE_A_TIME = st.builds(
    "{}-{}-{}{}{}:{}:{}{}{}".format, digits(4, 1, 9999), digits(2, 1, 12), digits(2, 1, 31),
    st.sampled_from(["T", "T", "T", "t", " "]), digits(2, 0, 23), digits(2, 0, 59), digits(2, 0, 59),
    st.one_of(st.just(""), st.from_regex(r"\.[0-9]{0,10}", fullmatch=True)), OFFSETS)
# Mostly near-times, each field in range or one step out of it; then any text at all.
TIMES = st.one_of(LOOKS_LIKE_A_TIME, LOOKS_LIKE_A_TIME, LOOKS_LIKE_A_TIME, st.text(max_size=40))


@pytest.fixture
def unthrottled(settings):
    # Every accepted example is a write of alice's: they must not turn the later ones into rate_limited.
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 10**6}


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=TIMES)
def test_any_valid_until_is_accepted_as_the_same_instant_or_refused_naming_it(value, as_alice, thread, unthrottled):
    before = world()
    response = as_alice.say("assert", "a time", thread=thread, valid_until=value)
    assert response.status_code in (201, 400), response.content[:300]
    if response.status_code == 400:
        refused(response, 400, "invalid_body", field="valid_until")
        assert world() == before, "a refused request changed stored state"
        return
    # Accepted: a time of the §14.1 form, and the claim keeps its instant (Python cuts fractions at 6 digits).
    assert value[10] == "T" and value[-1] != "z", value
    stored = response.json()["claim"]["valid_until"]
    assert datetime.fromisoformat(stored) == datetime.fromisoformat(value), (value, stored)
