"""PostgreSQL stops and starts again in the middle of the load. The cluster is the test's own (the shared one
serves other suites), so this runs whatever database the suite itself uses. While the database is away the
server answers 503 `unavailable` and /healthz says so; once it is back, the same gunicorn workers serve writes
again by themselves, and nothing they acknowledged is lost or stored twice.

A fast shutdown first cuts every connection, as pg_terminate_backend would, so killing the server's
connections needs no run of its own."""
import subprocess
import time
from dataclasses import dataclass

from django.db import connections

from bench.server import GunicornServer
from forum.actors import Actor
from forum.tokens import token_create
from tests.production.invariants import assert_the_load_left_everything_consistent
from tests.production.load import Ledger, make_crowd, run_load, start_agents
from tests.production.private_cluster import ALIAS

OPERATOR = Actor.for_operator("tests")

LOAD_SECONDS = 15
STOP_AFTER, DOWN_FOR = 5.0, 2.5  # seconds into the load; seconds the database stays away
BACK_WITHIN = 30  # seconds /healthz may take to answer 200 again after PostgreSQL has started


def token_with_secret(handle, rights=("read", "write")):
    token, secret = token_create(OPERATOR, handle, set(rights))
    token.secret = secret
    return token


@dataclass
class Outage:
    stopping: float = 0.0  # time.monotonic() at each step
    stopped: float = 0.0
    started: float = 0.0
    healthz_while_down: int = 0
    healthz_after: int = 0


def restart_postgresql(cluster, probe, outage):
    """The `during` of run_load: stop PostgreSQL STOP_AFTER seconds in, keep it down DOWN_FOR seconds, start
    it again, and wait for /healthz to answer 200."""
    def during(deadline):
        time.sleep(STOP_AFTER)
        connections[ALIAS].close()  # the test's own connection would not survive the restart either
        outage.stopping = time.monotonic()
        cluster.stop()
        outage.stopped = time.monotonic()
        outage.healthz_while_down = probe.get("/healthz")[0]
        time.sleep(max(0.0, outage.stopped + DOWN_FOR - time.monotonic()))
        cluster.start()
        outage.started = time.monotonic()
        outage.healthz_after = probe.get("/healthz")[0]
        while outage.healthz_after != 200 and time.monotonic() < outage.started + BACK_WITHIN:
            time.sleep(0.1)
            outage.healthz_after = probe.get("/healthz")[0]
    return during


def worker_pids(server):
    listed = subprocess.run(["ps", "--ppid", str(server.process.pid), "-o", "pid="], capture_output=True,
                            text=True, check=True)
    return set(listed.stdout.split())


def test_a_postgresql_restart_mid_load_is_answered_503_and_loses_nothing_acknowledged(private_cluster,
                                                                                        http_agent):
    ledger, outage = Ledger(), Outage()
    crowd = make_crowd(token_with_secret)
    with GunicornServer(private_cluster.url, workers=2, threads=4, PARLEY_WRITES_PER_MINUTE=10**6) as server:
        workers = worker_pids(server)
        during = restart_postgresql(private_cluster, http_agent(server, None), outage)
        run_load(start_agents(server, http_agent, crowd, ledger), LOAD_SECONDS, during=during)
        assert worker_pids(server) == workers, "the workers should have recovered, not been replaced"

    unavailable = [a for a in ledger.answers if a.status == 503]
    assert {a.reason for a in unavailable} <= {"unavailable"}
    assert [a for a in unavailable if outage.stopping <= a.at <= outage.started], "no 503 while it was down"
    assert (outage.healthz_while_down, outage.healthz_after) == (503, 200)
    assert [a for a in ledger.answers if a.status in (200, 201) and a.at > outage.started], \
        "no write succeeded after PostgreSQL came back"
    assert_the_load_left_everything_consistent(ledger, allowed_5xx=(503,))
