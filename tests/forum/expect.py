"""Assertions every test folder shares: a refusal is a status, a stable reason and its detail, and a
refused write stores nothing."""
from contextlib import contextmanager
from typing import NamedTuple

from dialectic.models import Claim, ClaimAct
from forum.models import IdempotencyRecord, Message, StateEvent, Thread, Token


def refused(response, status, reason, **detail):
    """Assert a §13 refusal whose detail holds `detail` (detail.field, detail.right, ...) and return its
    `error` object."""
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["reason"] == reason, error
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["detail"], dict)
    for name, value in detail.items():
        assert error["detail"].get(name) == value, error
    return error


def accepted(response, status=201):
    assert response.status_code == status, response.content
    return response.json()


def listing(agent, **params):
    """The thread ids a list_threads request answers, in order."""
    response = agent.get("/api/v1/threads", **params)
    assert response.status_code == 200, response.json()
    return [thread["id"] for thread in response.json()["items"]]


class World(NamedTuple):
    threads: list
    messages: list
    events: list
    idempotency_records: int
    token_writes: list
    claims: list
    claim_acts: list


def world():
    """Everything a write could change: threads (state, awaiting, loop run), messages (a redaction erases
    one), events, remembered
    idempotent answers, each token's count of accepted writes, and the dialectic profile's claims and the
    acts that moved them."""
    return World(
        list(Thread.objects.order_by("id").values()),
        list(Message.objects.order_by("id").values()),
        list(StateEvent.objects.order_by("id").values()),
        IdempotencyRecord.objects.count(),
        list(Token.objects.order_by("id").values_list("handle", "write_count")),
        list(Claim.objects.order_by("id").values()),
        list(ClaimAct.objects.order_by("id").values()),
    )


@contextmanager
def nothing_stored():
    before = world()
    yield
    assert world() == before, "a refused request changed stored state"
