"""A mixed load of many agents (tokens × extensions) over REST and MCP, each write carrying an Idempotency-Key
and retried with it while the server answers 503, and a ledger of every answer for the invariant check."""
import random
import threading
import time
import uuid
from dataclasses import dataclass, field

AGENT_ACTS = [("ask", 3), ("answer", 4), ("note", 3), ("follow_up", 1), ("decide", 2), ("close", 2),
              ("reopen", 1), ("defer", 1)]
MODERATOR_ACTS = [("confirm", 5), ("dismiss", 1), ("close", 1), ("reopen", 1)]
RETRY_UNAVAILABLE_FOR = 15  # seconds an agent keeps retrying a write the server answered 503


@dataclass
class Ledger:
    answers: list = field(default_factory=list)  # (transport, operation, status, reason, body)
    threads: list = field(default_factory=list)  # (thread id, creator identity)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, transport, operation, status, body):
        reason = (body or {}).get("error", {}).get("reason") if status >= 400 else None
        with self.lock:
            self.answers.append((transport, operation, status, reason, body))
            if operation == "ask" and status == 201:
                self.threads.append((body["thread"]["id"], body["message"]["from"]["identity"]))

    def pick_thread(self, rng, creator=None):
        with self.lock:
            candidates = [tid for tid, who in self.threads[-60:] if creator in (None, who)]
        return rng.choice(candidates) if candidates else None

    def acknowledged_messages(self):
        return [body["message"] for _, _, status, _, body in self.answers
                if 200 <= status < 300 and body.get("message")]


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
        thread = None if act == "ask" else self.ledger.pick_thread(self.rng, self.identity if own else None)
        if act != "ask" and thread is None:
            return
        if act in ("confirm", "dismiss"):
            self.write(act, {"thread": thread})
        else:
            kind = "ask" if act == "follow_up" else act
            envelope = {"kind": kind, "body": f"{act} by {self.identity}/{self.extension} {uuid.uuid4().hex[:8]}"}
            if self.extension:
                envelope["from"] = {"extension": self.extension}
            if thread is not None:
                envelope["thread"] = thread
            self.write(act, envelope)

    def write(self, act, arguments):
        key, give_up = uuid.uuid4().hex, time.monotonic() + RETRY_UNAVAILABLE_FOR
        while True:
            status, body = self.send(act, arguments, key)
            self.ledger.record(self.transport, act, status, body)
            if status != 503 or time.monotonic() > give_up:
                return
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
    """Run every agent on its own thread for `seconds`; `during(elapsed_fraction)` may act meanwhile."""
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=agent.run_until, args=(deadline,)) for agent in agents]
    for thread in threads:
        thread.start()
    if during is not None:
        during(deadline)
    for thread in threads:
        thread.join(timeout=seconds + RETRY_UNAVAILABLE_FOR + 30)
