"""One serving model (§16): the production command (`gunicorn -c gunicorn.conf.py`, one worker here) serves
the ASGI application, where a held wait or an open stream costs neither a thread nor a database connection
and no client within its caps can starve another. A WSGI deployment refuses to hold, at once, with JSON."""
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection

from bench.server import HttpAgent
from parley_site.sync_threads import SYNC_THREADS
from tests.sse_client import SseStream

pytestmark = pytest.mark.postgres
CAP = 4  # streams_per_token_max and waits_per_token_max, the defaults
FEED_READS = 4  # feed.follow.READS


def bearer(token):
    return {"Authorization": f"Bearer {token.secret}"}


def worker_pid(server):
    """The one worker process of a gunicorn master."""
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def threads_of(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Threads:")).split()[1])


def database_sessions():
    """The sessions other than this test's on the test database: the server's connections."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


class Holders:
    """Waits (GET inbox?wait=...) held open on threads of the test, and streams on raw sockets."""

    def __init__(self, server):
        self.server, self.pool, self.waits, self.streams = server, ThreadPoolExecutor(64), [], []

    def wait(self, token, seconds=30):
        agent = HttpAgent(self.server, token, timeout=seconds + 10)
        self.waits.append(self.pool.submit(agent.get, f"/api/v1/inbox?wait={seconds}"))

    def stream(self, token):
        self.streams.append(SseStream(self.server.port, "/api/v1/events/stream", bearer(token)))
        return self.streams[-1]

    def close(self):
        for stream in self.streams:
            stream.close()
        self.pool.shutdown(wait=True)


def timed(call):
    started = time.monotonic()
    answer = call()
    return answer, time.monotonic() - started


def test_a_streams_head_and_retry_frame_come_at_once_and_an_ask_within_a_second(gunicorn, http_agent, alice,
                                                                                bob):
    with gunicorn(workers=1) as server:
        (stream, opened) = timed(lambda: SseStream(server.port, "/api/v1/events/stream?inbox=1", bearer(bob)))
        assert stream.status == 200
        assert stream.wait_for_text("retry: 2000\n\n", timeout=1)
        _, asked = timed(lambda: http_agent(server, alice).post({"kind": "ask", "body": "Heard at once?"}))
        (event, delivered) = timed(lambda: stream.next_event(timeout=2))
        stream.close()
    assert opened < 1
    assert event is not None and event[1]["title"] == "Heard at once?"
    assert asked + delivered < 1


def test_held_waits_and_streams_cost_no_thread_and_no_database_connection_of_their_own(
        gunicorn, http_agent, make_token, alice):
    """A process's threads and connections are bounded by its pools, whatever it holds: requests' sync code
    (SYNC_THREADS, each keeping one connection), the feed's reads (4, each one connection), its listener and
    slot connections, and asyncio's default executor (at most CPUs + 4 threads)."""
    listeners = [make_token(f"listener{n}", ("read",)) for n in range(6)]
    pools = SYNC_THREADS + FEED_READS
    with gunicorn(workers=1) as server:
        worker, holders = worker_pid(server), Holders(server)
        try:
            http_agent(server, listeners[0]).get("/api/v1/inbox?wait=1")
            holders.stream(listeners[0]).wait_for_text("retry:", timeout=5)
            time.sleep(1)
            threads_before, sessions_before = threads_of(worker), database_sessions()
            for token in listeners:
                for _ in range(CAP):
                    holders.wait(token)
                    holders.stream(token)
            time.sleep(1.5)
            threads_held, sessions_held = threads_of(worker), database_sessions()
            assert not any(wait.done() for wait in holders.waits), "every wait is still held"
            http_agent(server, alice).post({"kind": "ask", "body": "Wake up, everyone"})
            assert [wait.result()[0] for wait in holders.waits] == [200] * len(holders.waits)
        finally:
            holders.close()
    held = len(listeners) * CAP * 2
    print(f"\n{held} held calls: threads {threads_before} -> {threads_held}, "
          f"database sessions {sessions_before} -> {sessions_held}")
    assert threads_held <= 1 + pools + 1 + (os.cpu_count() + 4) < held, "no thread per holder"
    assert sessions_held <= pools + 2 < held, "no connection per holder"


def test_a_wsgi_deployment_refuses_the_stream_and_a_wait_at_once_with_json(gunicorn, http_agent, bob):
    with gunicorn(workers=1, GUNICORN_APP="parley_site.wsgi:application", GUNICORN_WORKER_CLASS="gthread") as server:
        agent = http_agent(server, bob)
        refusals = [timed(lambda: agent.get("/api/v1/events/stream")),
                    timed(lambda: agent.get("/api/v1/inbox?wait=30")),
                    timed(lambda: agent.mcp("inbox", {"wait": 30}))]
        still_served = agent.get("/api/v1/inbox?wait=0")[0]
    for (status, body, _), seconds in refusals:
        assert seconds < 1
        assert (status, body["error"]["reason"]) == (503, "unavailable")
        assert "parley_site.asgi:application" in body["error"]["detail"]["fix"]
    assert still_served == 200


def test_holders_at_their_caps_and_a_search_flood_starve_no_other_client(gunicorn, http_agent, make_token,
                                                                         alice):
    readers = [make_token(f"reader{n}", ("read",)) for n in range(4)]
    with gunicorn(workers=1) as server:
        holders, stop, searches = Holders(server), threading.Event(), []

        def search(agent):  # a flood, bounded in time: until the measurement is done, at most 60 s
            deadline = time.monotonic() + 60
            while not stop.is_set() and time.monotonic() < deadline:
                searches.append(agent.get("/api/v1/threads?q=starving%20the%20server")[0])
        flood = [threading.Thread(target=search, args=(http_agent(server, readers[n % 4]),)) for n in range(8)]
        try:
            for reader in readers:
                for _ in range(CAP):
                    holders.wait(reader)
                    holders.stream(reader)
            for searcher in flood:
                searcher.start()
            time.sleep(1.5)
            over_stream = holders.stream(readers[0])
            over_stream = (over_stream.status, over_stream.refusal()["error"]["detail"]["limit"])
            over_wait = http_agent(server, readers[0]).get("/api/v1/inbox?wait=30")
            other = http_agent(server, alice)
            (health, health_seconds) = timed(lambda: other.get("/healthz"))
            (read, read_seconds) = timed(lambda: other.get("/api/v1/threads"))
            (write, write_seconds) = timed(lambda: other.post({"kind": "ask", "body": "Am I starved?"}))
            stop.set()
            waits = [wait.result()[0] for wait in holders.waits]  # the ask wakes every reader's wait
        finally:
            stop.set()
            for searcher in flood:
                searcher.join()
            holders.close()
    print(f"\nwith {len(readers) * CAP * 2} held and {len(searches)} searches: healthz {health_seconds:.3f} s, "
          f"read {read_seconds:.3f} s, write {write_seconds:.3f} s")
    assert over_stream == (409, "streams_per_token_max")
    assert (over_wait[0], over_wait[1]["error"]["detail"]["limit"]) == (409, "waits_per_token_max")
    assert (health[0], read[0], write[0]) == (200, 200, 201)
    assert max(health_seconds, read_seconds, write_seconds) < 5
    assert waits == [200] * len(readers) * CAP
    assert set(searches) == {200}


def test_the_production_command_stops_at_once_and_ends_open_streams_after_a_short_grace(gunicorn, bob):
    server = gunicorn(workers=1, GUNICORN_GRACEFUL_TIMEOUT=6)  # open connections get 2 s at shutdown
    with server:
        stream = SseStream(server.port, "/api/v1/events/stream", bearer(bob))
        assert stream.wait_for_text("retry:", timeout=2)
        stopping = time.monotonic()
    stopped = time.monotonic() - stopping
    ended = stream.dropped(timeout=1)
    stream.close()
    assert stopped < 5, "quick shutdown, not gunicorn's kill after its graceful timeout"
    assert ended
    assert "SIGKILL" not in server.log_text()
