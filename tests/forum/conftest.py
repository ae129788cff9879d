"""The forum tests' readers and limits; threads in every state come from tests/conftest.py's thread_in."""
import pytest


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
