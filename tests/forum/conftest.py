"""Threads in every state of §9, built through the API by the personas of tests/conftest.py."""
import pytest

SIDE_STATES = ("deferred", "obsolete", "rejected")
SIDE_ACT = {"deferred": "defer", "obsolete": "obsolete", "rejected": "reject"}


@pytest.fixture
def thread_in(as_alice, as_bob, as_mod):
    """build(state, confirmed=False) -> thread id: a thread alice opened, moved to `state` by alice's
    proposals (bob answers), and confirmed by mod when asked to."""

    def build(state, confirmed=False):
        thread = as_alice.ask("Which port does Parley use?")
        steps = {
            "open": [],
            "answered": [(as_bob, "answer")],
            "decided": [(as_alice, "decide")],
            "closed": [(as_bob, "answer"), (as_alice, "close")],
            **{side: [(as_alice, SIDE_ACT[side])] for side in SIDE_STATES},
        }[state]
        for speaker, kind in steps:
            response = speaker.say(kind, f"{kind} it", thread=thread)
            assert response.status_code == 201, response.json()
        if confirmed and steps:
            response = as_mod.post(f"/api/v1/threads/{thread}/confirm")
            assert response.status_code == 200, response.json()
        return thread

    return build


@pytest.fixture
def read_thread(as_mallory):
    """The thread object as a reader sees it."""

    def read(thread):
        response = as_mallory.get(f"/api/v1/threads/{thread}")
        assert response.status_code == 200, response.json()
        return response.json()["thread"]

    return read


@pytest.fixture
def events_of(as_mallory):
    def events(thread):
        response = as_mallory.get(f"/api/v1/threads/{thread}/events", limit=200)
        assert response.status_code == 200, response.json()
        return response.json()["items"]

    return events


@pytest.fixture
def low_limits(settings):
    """low_limits(name=value, ...): lower §14 limits for one test."""

    def lower(**limits):
        settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, **limits}

    return lower
