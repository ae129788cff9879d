"""Assertions the forum tests share: a refusal is a status, a stable reason, and nothing stored."""
from contextlib import contextmanager

from forum.models import IdempotencyRecord, Message, StateEvent, Thread, Token


def refused(response, status, reason):
    """Assert a §13 refusal and return its `error` object."""
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["reason"] == reason, error
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["detail"], dict)
    return error


def accepted(response, status=201):
    assert response.status_code == status, response.content
    return response.json()


def listing(agent, **params):
    """The thread ids a list_threads request answers, in order."""
    response = agent.get("/api/v1/threads", **params)
    assert response.status_code == 200, response.json()
    return [thread["id"] for thread in response.json()["items"]]


def world():
    """Everything a write could change: threads (state, awaiting, loop run), messages, events, remembered
    idempotent answers, and each token's count of accepted writes."""
    return (
        list(Thread.objects.order_by("id").values()),
        list(Message.objects.order_by("id").values_list("id", flat=True)),
        list(StateEvent.objects.order_by("id").values()),
        IdempotencyRecord.objects.count(),
        list(Token.objects.order_by("id").values_list("handle", "write_count")),
    )


@contextmanager
def nothing_stored():
    before = world()
    yield
    assert world() == before, "a refused request changed stored state"
