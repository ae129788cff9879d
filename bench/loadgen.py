"""A concurrent load generator on loopback: one OS process per client (no shared interpreter lock with the
other clients), each with one keep-alive connection, sending one operation as fast as answers come back."""
import multiprocessing
import random
import statistics
import time
from dataclasses import dataclass

from bench.server import HttpAgent


@dataclass
class Target:
    port: int
    operation: str
    secrets: list  # the bearer tokens this client rotates through (writes are rate limited per token)
    threads: list  # thread numbers a write may go to
    big_thread: int
    inbox_cursor: str
    message: int = 1  # the message read_message reads
    claim: int = 1  # the claim read_claim reads


def read_calls(target):
    """Every read the benchmark measures: name -> (its REST path, its MCP tool and arguments). `search`
    is list_threads with a `q=` that matches nothing (the trigram indexes' worst useful case)."""
    return {
        "inbox": ("/api/v1/inbox", "inbox", {}),
        "inbox_since": (f"/api/v1/inbox?since={target.inbox_cursor}", "inbox", {"since": target.inbox_cursor}),
        "inbox_decision": ("/api/v1/inbox?awaiting=decision", "inbox", {"awaiting": "decision"}),
        "list_threads": ("/api/v1/threads", "list_threads", {}),
        "search": ("/api/v1/threads?q=needle", "list_threads", {"q": "needle"}),
        "read_thread": (f"/api/v1/threads/th_{target.big_thread}", "read_thread",
                        {"thread": f"th_{target.big_thread}"}),
        "read_message": (f"/api/v1/messages/msg_{target.message}", "read_message",
                         {"message": f"msg_{target.message}"}),
        "list_events": ("/api/v1/events", "list_events", {}),
        "whoami": ("/api/v1/whoami", "whoami", {}),
        "read_claim": (f"/api/v1/claims/cl_{target.claim}", "read_claim", {"claim": f"cl_{target.claim}"}),
    }


def tool_call(number, tool, arguments):
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


class _Server:  # what HttpAgent needs of a server: its port
    def __init__(self, port):
        self.port = port


def request_for(target, rng, number):
    """(method, path, body, secret) of the operation's next request."""
    secret = target.secrets[number % len(target.secrets)]
    thread = rng.choice(target.threads)
    body = f"benchmark note {number} {rng.random():.6f}"
    operation = target.operation
    if operation == "post":
        return "POST", "/api/v1/messages", {"kind": "note", "thread": thread, "body": body}, secret
    if operation == "ask":  # a new thread: a write that takes cursor positions (forum/sequences.py)
        return "POST", "/api/v1/messages", {"kind": "ask", "body": body}, secret
    if operation == "mcp_post":
        return "POST", "/mcp", tool_call(number, "post", {"kind": "note", "thread": thread, "body": body}), secret
    if operation == "floor":
        return "POST", "/bench/floor", {"thread": thread, "body": body}, secret
    if operation == "read_floor":
        return "GET", "/bench/read-floor", None, secret
    if operation.startswith("mcp_"):  # a read over MCP: mcp_inbox, mcp_read_thread, ...
        _, tool, arguments = read_calls(target)[operation.removeprefix("mcp_")]
        return "POST", "/mcp", tool_call(number, tool, arguments), secret
    return "GET", read_calls(target)[operation][0], None, secret


def succeeded(operation, status, body):
    if operation.startswith("mcp_"):
        return status == 200 and "result" in (body or {}) and not body["result"]["isError"]
    return 200 <= status < 300


def drive(target, seconds, seed, queue):
    """One client: send requests for `seconds`; report (latencies of successes, failures by status)."""
    rng, agent = random.Random(seed), HttpAgent(_Server(target.port), None)
    latencies, failures, number = [], {}, seed * 1_000
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        method, path, body, agent.secret = request_for(target, rng, number)
        started = time.perf_counter()
        status, answer, _ = agent.request(method, path, body)
        elapsed = time.perf_counter() - started
        if succeeded(target.operation, status, answer):
            latencies.append(elapsed)
        else:
            key = (answer or {}).get("result", {}).get("structuredContent", {}).get("error", {}).get(
                "reason") if target.operation.startswith("mcp_") else status
            failures[key] = failures.get(key, 0) + 1
        number += 1
    agent.close()
    queue.put((latencies, failures))


@dataclass
class Figures:
    operation: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    failures: dict
    cpu_seconds: float  # used by the server and its database meanwhile (bench/cpu.py)

    @property
    def throughput(self):
        return self.requests / self.seconds

    @property
    def cpu_ms_per_request(self):
        return self.cpu_seconds * 1000 / max(1, self.requests + sum(self.failures.values()))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000 if ordered else float("nan")


def measure(target, clients, seconds, meter):
    """Run `clients` processes against `target` for `seconds`; their secrets are split between them."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    share = max(1, len(target.secrets) // clients)
    # A fresh seed per run: repeating the same choices round after round would make the same two tokens
    # alternate in the same threads until the loop guard (§14) refuses them.
    first_seed = random.randrange(1, 10**6) * clients
    processes = [context.Process(target=drive, args=(
        Target(**{**target.__dict__, "secrets": target.secrets[n * share:(n + 1) * share] or target.secrets}),
        seconds, first_seed + n, queue)) for n in range(clients)]
    cpu_before = meter.seconds()
    for process in processes:
        process.start()
    results = [queue.get(timeout=seconds + 120) for _ in processes]
    cpu_used = meter.seconds() - cpu_before
    for process in processes:
        process.join()
    latencies = [value for found, _ in results for value in found]
    failures = {}
    for _, found in results:
        for key, count in found.items():
            failures[key] = failures.get(key, 0) + count
    return Figures(target.operation, len(latencies), seconds, percentile(latencies, 0.5),
                   percentile(latencies, 0.99), failures, cpu_used)


def interleaved_latency(targets, requests):
    """p50 per target of `requests` requests each, one at a time (latency without queueing), alternating
    between the targets so that both see the same background load."""
    rng = random.Random(7)
    agents = [HttpAgent(_Server(target.port), None) for target in targets]
    latencies = [[] for _ in targets]
    for number in range(requests):
        for target, agent, found in zip(targets, agents, latencies):
            method, path, body, agent.secret = request_for(target, rng, number)
            started = time.perf_counter()
            agent.request(method, path, body)
            found.append(time.perf_counter() - started)
    for agent in agents:
        agent.close()
    return [statistics.median(found) * 1000 for found in latencies]
