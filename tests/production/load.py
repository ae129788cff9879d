"""A mixed load of many agents (tokens × extensions) over REST and MCP, each write carrying an Idempotency-Key
and retried with it while the server answers 503, and a ledger of every answer for the invariant check."""
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import NamedTuple

from forum.models import TERMINAL_STATES

# `late_note`: a note to a thread last seen locked, as an agent that missed the close would send.
AGENT_ACTS = [("ask", 2), ("answer", 4), ("note", 3), ("follow_up", 1), ("decide", 2), ("close", 2),
              ("reopen", 1), ("defer", 1), ("late_note", 1)]
KIND_OF_ACT = {"follow_up": "ask", "late_note": "note"}
MODERATOR_ACTS = [("confirm", 5), ("dismiss", 1), ("close", 1), ("defer", 1), ("reopen", 1)]
RETRY_UNAVAILABLE_FOR = 15  # seconds an agent keeps retrying a write the server answered 503
TOKENS, EXTENSIONS, MODERATOR_LINES = 50, 3, 16
CLOSED_FIRST = 3  # threads closed by a moderator before the load starts


class Answer(NamedTuple):
    transport: str
    operation: str
    status: int
    reason: str | None
    body: dict | None
    at: float  # time.monotonic() when the answer arrived


@dataclass
class Ledger:
    answers: list = field(default_factory=list)  # Answer
    threads: list = field(default_factory=list)  # (thread id, creator identity)
    proposals: set = field(default_factory=set)  # threads last seen awaiting a moderator's confirmation
    locked: set = field(default_factory=set)  # threads last seen in a confirmed terminal state
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, transport, operation, status, body, thread_id=None):
        reason = (body or {}).get("error", {}).get("reason") if status >= 400 else None
        with self.lock:
            self.answers.append(Answer(transport, operation, status, reason, body, time.monotonic()))
            if operation == "ask" and status == 201:
                self.threads.append((body["thread"]["id"], body["message"]["from"]["identity"]))
            if 200 <= status < 300 and isinstance(body.get("thread"), dict):
                self._note(body["thread"])
            elif reason == "nothing_to_confirm":
                self.proposals.discard(thread_id)

    def _note(self, thread):
        """Answers to one thread may arrive out of order: these sets are hints for picking, never facts."""
        awaits_confirmation = (thread["awaiting"] or {}).get("act") == "confirmation"
        is_locked = thread["state"] in TERMINAL_STATES and thread["state_confirmed_at"] is not None
        (self.proposals.add if awaits_confirmation else self.proposals.discard)(thread["id"])
        (self.locked.add if is_locked else self.locked.discard)(thread["id"])

    def pick_thread(self, rng, creator=None, locked_too=False):
        """One of the newest threads (by `creator`); agents see a lock, so they skip threads last seen locked
        unless they mean to reopen one (late notes hit them on purpose)."""
        with self.lock:
            candidates = [tid for tid, who in self.threads[-60:]
                          if creator in (None, who) and (locked_too or tid not in self.locked)]
        return rng.choice(candidates) if candidates else None

    def pick_from(self, rng, hinted):
        """A thread of `hinted` (self.proposals or self.locked), or None."""
        with self.lock:
            candidates = list(hinted)
        return rng.choice(candidates) if candidates else None

    def acknowledged_messages(self):
        return [answer.body["message"] for answer in self.answers
                if 200 <= answer.status < 300 and answer.body.get("message")]


class LoadAgent:
    def __init__(self, http, identity, extension, transport, ledger, seed, moderator=False):
        self.http, self.identity, self.extension = http, identity, extension
        self.transport, self.ledger, self.moderator = transport, ledger, moderator
        self.rng = random.Random(seed)

    def run_until(self, deadline):
        while time.monotonic() < deadline:
            self.step()

    def step(self):
        acts = MODERATOR_ACTS if self.moderator else AGENT_ACTS
        act = self.rng.choices([name for name, _ in acts], [weight for _, weight in acts])[0]
        own = act in ("decide", "close", "reopen", "defer") and not self.moderator
        if act == "ask":
            thread = None
        elif act in ("confirm", "dismiss"):  # mostly real proposals, so that threads get locked
            thread = self.ledger.pick_from(self.rng, self.ledger.proposals) or self.ledger.pick_thread(self.rng)
        elif act == "late_note":
            thread = self.ledger.pick_from(self.rng, self.ledger.locked)
        else:
            thread = self.ledger.pick_thread(self.rng, self.identity if own else None, locked_too=act == "reopen")
        if act != "ask" and thread is None:
            return
        self.write(act, {"thread": thread} if act in ("confirm", "dismiss") else self.envelope(act, thread))

    def envelope(self, act, thread=None):
        envelope = {"kind": KIND_OF_ACT.get(act, act),
                    "body": f"{act} by {self.identity}/{self.extension} {uuid.uuid4().hex[:8]}"}
        if self.extension:
            envelope["from"] = {"extension": self.extension}
        if thread is not None:
            envelope["thread"] = thread
        return envelope

    def write(self, act, arguments):
        """Send once, and again with the same Idempotency-Key while the answer is 503. Returns the last answer."""
        key, give_up = uuid.uuid4().hex, time.monotonic() + RETRY_UNAVAILABLE_FOR
        while True:
            status, body = self.send(act, arguments, key)
            self.ledger.record(self.transport, act, status, body, arguments.get("thread"))
            if status != 503 or time.monotonic() > give_up:
                return status, body
            time.sleep(0.2)

    def send(self, act, arguments, key):
        if act in ("confirm", "dismiss"):
            if self.transport == "mcp":
                return self.http.mcp(act, arguments, key)[:2]
            path = f"/api/v1/threads/{arguments['thread']}/{act}"
            return self.http.request("POST", path, {}, {"Idempotency-Key": key})[:2]
        if self.transport == "mcp":
            status, body, _ = self.http.mcp("post", arguments, key)
            return (201 if status == 200 else status), body
        return self.http.post(arguments, headers={"Idempotency-Key": key})[:2]


def run_load(agents, seconds, during=None):
    """Run every agent on its own thread for `seconds`; `during(deadline)` runs on this thread meanwhile."""
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=agent.run_until, args=(deadline,)) for agent in agents]
    for thread in threads:
        thread.start()
    if during is not None:
        during(deadline)
    for thread in threads:
        thread.join(timeout=seconds + RETRY_UNAVAILABLE_FOR + 30)


def make_crowd(make_token):
    """TOKENS agent lines and one moderator line holding `lock`: (tokens, moderator)."""
    return [make_token(f"agent{n}") for n in range(TOKENS)], make_token("mod", ("read", "write", "lock"))


def start_agents(server, http_agent, crowd, ledger):
    """EXTENSIONS sub-agents per token, half of the tokens speaking MCP, and MODERATOR_LINES moderators
    alternating between the doors (fewer would confirm too little for threads to lock under this load).
    They close CLOSED_FIRST threads before the load, so late writes meet a confirmed close from its first
    second, however slow the machine."""
    tokens, mod = crowd
    agents = [LoadAgent(http_agent(server, token), token.identity, f"x{extension}",
                        "mcp" if number % 2 else "rest", ledger, seed=number * 10 + extension)
              for number, token in enumerate(tokens) for extension in range(EXTENSIONS)]
    agents += [LoadAgent(http_agent(server, mod), mod.identity, "", ("rest", "mcp")[n % 2], ledger,
                         seed=10**6 + n, moderator=True) for n in range(MODERATOR_LINES)]
    asker, answerer, moderator = agents[0], agents[EXTENSIONS], agents[-1]  # two tokens: no self-reply
    for _ in range(CLOSED_FIRST):
        thread = asker.write("ask", asker.envelope("ask"))[1]["thread"]["id"]
        answerer.write("answer", answerer.envelope("answer", thread))
        moderator.write("close", moderator.envelope("close", thread))  # a lock holder's close binds at once
    return agents
