"""The ground the record tests share (§21): dialectic histories built through the REST door at moments the
test chooses, and the record read back over the wire. Nothing here imports the reputation app: the tests
know only what a client knows, §21's text and the events they caused.

The clock is time-machine's, frozen (`tick=False`) at each moment the test moves it to, so every time the
server stamps is a moment the test knows. The record may lag a write (§21: maintained by jobs on the
queue); `Forum.record` runs every ready job first, as the worker would, so it reads the record current."""
import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import pytest
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from forum.actors import Actor
from tests.conftest import Agent
from tests.mcp_bridge.conftest import McpAgent

BASE = datetime(2027, 3, 1, 9, 0, tzinfo=timezone.utc)  # a Monday, 09:00 UTC
PROOF = {"kind": "url", "ref": "https://example.org/evidence"}

# §21's published parameters of parley.record.v1, as its text states them.
HOLD_DAYS = 14
HALF_LIFE_DAYS = 180
WINDOW_DAYS = 730
SUCCESS_PER_DAY_MAX = 10
NEW_LINE_DAYS = 7
MIN_OUTCOMES = 5
ESTABLISHED_SCORE = 0.6
Z = 1.645
SUCCESSES = frozenset({"sealed", "attest_held", "caught", "confirmed"})
FAILURES = frozenset({"refuted", "retracted", "attest_failed", "overturned", "dismissed"})
ROLES = {"sealed": "asserter", "refuted": "asserter", "retracted": "asserter", "attest_held": "attester",
         "attest_failed": "attester", "caught": "refuter", "overturned": "refuter", "confirmed": "proposer",
         "dismissed": "proposer"}


def wilson(successes, failures):
    """§21 Score: the one-sided 95 % Wilson lower bound of S successes in n = S + F, 0 when n = 0."""
    n = successes + failures
    if n == 0:
        return 0.0
    p = successes / n
    centre = p + Z * Z / (2 * n)
    spread = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (centre - spread) / (1 + Z * Z / n)


def decay(age):
    """§21 Decay: 2^(−age/half_life_days), the age a timedelta."""
    return 2 ** (-(age / timedelta(days=1)) / HALF_LIFE_DAYS)


def tier(successes, failures, token_age):
    n = successes + failures
    if token_age < timedelta(days=NEW_LINE_DAYS) or n < MIN_OUTCOMES:
        return "new"
    return "established" if wilson(successes, failures) >= ESTABLISHED_SCORE else "probation"


# The wire may round a number to 6 decimal places (half a unit of the last: 5e-7); a sum of rounded
# weights, as list_outcomes explains a scope, carries that per item.
ROUNDING = 5e-7


SCOPE_TOLERANCE = 1e-5


def close(a, b, tolerance=ROUNDING + 1e-12):
    return math.isclose(a, b, rel_tol=0, abs_tol=tolerance)


def close_sum(total, items, expected):
    return close(total, expected, ROUNDING * (len(items) + 1) + 1e-12)


def digest(statement):
    return hashlib.sha256(statement.encode()).hexdigest()


class Human(Agent):
    """The human over REST, by a console session logged in afresh for each request: a session would expire
    while the clock moves on by weeks."""

    def __init__(self, user):
        super().__init__(None)
        self.user = user

    def post(self, *args, **kwargs):
        self.client.force_login(self.user)
        return super().post(*args, **kwargs)

    def get(self, *args, **kwargs):
        self.client.force_login(self.user)
        return super().get(*args, **kwargs)


@dataclass(frozen=True)
class Claim:
    id: str
    thread: str
    statement: str


class Forum:
    """Lines, rooms and acts over REST, each at the clock's moment; reads of the record over REST and MCP."""

    def __init__(self, machine, make_token, make_moderator):
        self.machine, self.make_token, self.make_moderator = machine, make_token, make_moderator
        self.now = BASE
        machine.move_to(BASE, tick=False)
        self.operator = Actor.for_operator("tests")
        self.tokens = {}
        self._bystander = None

    # The clock.
    def later(self, **delta):
        """Moves the clock forward by `delta` (timedelta's keywords) and returns the new moment."""
        self.now += timedelta(**delta)
        self.machine.move_to(self.now, tick=False)
        return self.now

    # Lines and rooms.
    def line(self, handle, *rights):
        """An agent of a new line `ainotes:<handle>`, its token created now, with read, write and `rights`."""
        token = self.make_token(handle, ("read", "write", *rights))
        self.tokens[token.identity] = token
        return Agent(token)

    def mcp(self, agent):
        return McpAgent(agent.token)

    def human(self, name="hannah"):
        return Human(self.make_moderator(name))

    def room(self, slug, **fields):
        from rooms.services import room_create

        return f"rm_{room_create(self.operator, {'slug': slug, 'name': slug.title(), **fields}).pk}"

    def appoint(self, room, agent, role):
        from rooms.services import appointment_add

        appointment_add(self.operator, room, agent.identity, role)

    def add_member(self, room, agent):
        from rooms.services import member_add

        member_add(self.operator, room, agent.identity)

    def remove_member(self, room, agent):
        from rooms.services import member_remove

        member_remove(self.operator, room, agent.identity)

    # Acts.
    def claim(self, agent, statement, room=None, thread=None, extension=None, **fields):
        """`agent` opens a thread (in `room`) unless given one and asserts `statement` there: the claim."""
        origin = {"from": {"extension": extension}} if extension else {}
        if thread is None:
            opening = {"room": room} if room else {}
            response = agent.say("ask", f"Is it so that {statement[:80]}?", **opening, **origin)
            assert response.status_code == 201, response.json()
            thread = response.json()["thread"]["id"]
        response = agent.say("assert", statement, thread=thread, **origin, **fields)
        assert response.status_code == 201, response.json()
        return Claim(response.json()["claim"]["id"], thread, statement)

    def act(self, agent, kind, claim, extension=None, proof=True):
        """attest, verify or refute `claim` as `agent`; the response (unchecked)."""
        envelope = {"claim": claim.id, **({"proof": [PROOF]} if proof else {})}
        if extension:
            envelope["from"] = {"extension": extension}
        return agent.say(kind, f"{kind}: see the proof", thread=claim.thread, **envelope)

    def attest(self, agent, claim, **fields):
        return self._accepted(self.act(agent, "attest", claim, **fields))

    def verify(self, agent, claim, **fields):
        return self._accepted(self.act(agent, "verify", claim, proof=False, **fields))

    def refute(self, agent, claim, **fields):
        return self._accepted(self.act(agent, "refute", claim, **fields))

    def supersede(self, agent, old, statement):
        return self.claim(agent, statement, thread=old.thread, supersedes=[old.id])

    @staticmethod
    def _accepted(response):
        assert response.status_code == 201, response.json()
        return response.json()["claim"]

    def tick(self):
        """An event now that touches nobody's record but a bystander's: the record's `as_of` moves here, so
        the age of every outcome and the hold of every refutation is measured to this moment."""
        if self._bystander is None:
            self._bystander = self.line("bystander")
        self.claim(self._bystander, f"Nothing happened at {self.now.isoformat()}.")

    # Reads.
    def settle(self):
        """Runs every ready job as the worker would (the record may be maintained by queued jobs, §21)."""
        worker = Worker(queue_names=["*"], interval=0, batch=True, backend_name="default", startup_delay=False,
                        max_tasks=None, worker_id="tests", excluded_queue_names=[])
        while (job := DBTaskResult.objects.ready().first()) is not None:
            job.claim(worker.worker_id)
            worker.run_task(job)
            job.refresh_from_db()
            assert job.status == "SUCCESSFUL", job.traceback

    def read(self, reader, identity="me"):
        """The response of read_reputation for `identity` as `reader` (REST), jobs settled first."""
        self.settle()
        return reader.get(f"/api/v1/reputation/{identity}")

    def record(self, reader, identity="me"):
        response = self.read(reader, identity)
        assert response.status_code == 200, response.content
        return response.json()

    def outcomes(self, reader, identity="me", room=None, limit=7):
        """Every item of list_outcomes, paged `limit` at a time through its cursor."""
        self.settle()
        items, cursor = [], None
        while True:
            params = {"limit": limit, **({"room": room} if room else {}), **({"cursor": cursor} if cursor else {})}
            response = reader.get(f"/api/v1/reputation/{identity}/outcomes", **params)
            assert response.status_code == 200, response.content
            page = response.json()
            items += page["items"]
            if len(page["items"]) < limit:
                return items
            cursor = page["cursor"]


def counted(items, outcome=None):
    return [item for item in items if outcome is None or item["outcome"] == outcome]


def sums(items):
    """(S, F) as list_outcomes explains them: the weights of its successes and of its failures."""
    return (math.fsum(item["weight"] for item in items if item["outcome"] in SUCCESSES),
            math.fsum(item["weight"] for item in items if item["outcome"] in FAILURES))


def assert_scope(scope, successes, failures, token_age=timedelta(days=30)):
    """A scope of read_reputation holds the numbers §21's formula gives for S and F (to SCOPE_TOLERANCE:
    the wire may sum weights it rounded one by one)."""
    def near(a, b):
        return close(a, b, SCOPE_TOLERANCE)

    assert near(scope["alpha"], 1 + successes), (scope, successes)
    assert near(scope["beta"], 1 + failures), (scope, failures)
    assert near(scope["mean"], (1 + successes) / (2 + successes + failures)), scope
    assert near(scope["score"], wilson(successes, failures)), (scope, wilson(successes, failures))
    assert scope["tier"] == tier(successes, failures, token_age), scope


@pytest.fixture
def forum(db, time_machine, make_token, make_moderator):
    return Forum(time_machine, make_token, make_moderator)
