"""/metrics under the production command at two workers: every scrape, whichever worker answers it, shows
the whole server (the client's multiprocess mode, a fresh directory per server start), and the socket peer
is the connection's, never what X-Forwarded-For names, even where uvicorn takes the client address from it."""
import http.client
import os
import signal
import time
from pathlib import Path

import pytest

from bench.server import HttpAgent
from tests.metrics.conftest import METRICS_TOKEN, series
from tests.sse_client import SseStream

pytestmark = pytest.mark.postgres
TRIES = 400  # requests on fresh connections until both workers have served some


def fresh_request(server, path, token=None, headers=None):
    """One request on a connection of its own, so that either worker may accept it."""
    agent = HttpAgent(server, token)
    try:
        return agent.request("GET", path, headers=headers)
    finally:
        agent.close()


def scrape(server):
    """The series, read on a connection of its own like any Prometheus scrape."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        response = connection.getresponse()
        assert response.status == 200
        return series(response.read().decode())
    finally:
        connection.close()


def pids_serving(server, path):
    return {entry["pid"] for entry in server.log_entries() if entry.get("path") == path}


def workers(server):
    master = server.process.pid
    return {int(pid) for pid in Path(f"/proc/{master}/task/{master}/children").read_text().split()}


def until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.2)


LISTED = ("parley_requests_total", (("door", "rest"), ("operation", "list_threads"), ("outcome", "ok")))


def test_every_scrape_shows_the_requests_of_both_workers(gunicorn, alice):
    with gunicorn(workers=2, PARLEY_METRICS_TOKEN=METRICS_TOKEN) as server:
        sent = 0
        while len(pids_serving(server, "/api/v1/threads")) < 2 and sent < TRIES:
            assert fresh_request(server, "/api/v1/threads", alice)[0] == 200
            sent += 1
        assert len(pids_serving(server, "/api/v1/threads")) == 2, "one worker served every request"
        totals = []
        while len(pids_serving(server, "/metrics")) < 2 and len(totals) < TRIES:
            totals.append(scrape(server).get(LISTED))
        assert len(pids_serving(server, "/metrics")) == 2, "one worker answered every scrape"
        assert set(totals) == {sent}


def test_a_killed_workers_counts_stay_in_the_totals_and_its_files_go(gunicorn, alice, tmp_path):
    with gunicorn(workers=2, PARLEY_METRICS_TOKEN=METRICS_TOKEN, PARLEY_METRICS_DIR=tmp_path) as server:
        sent = 0
        # Until both have served some: a worker that served nothing has no counts (nor files) to keep.
        while len(pids_serving(server, "/api/v1/threads")) < 2 and sent < TRIES:
            assert fresh_request(server, "/api/v1/threads", alice)[0] == 200
            sent += 1
        [directory] = tmp_path.iterdir()
        killed = min(pids_serving(server, "/api/v1/threads"))
        os.kill(killed, signal.SIGKILL)
        until(lambda: len(workers(server) - {killed}) == 2)  # gunicorn started another in its place
        until(lambda: not (directory / f"counter_{killed}.db").exists())
        assert {scrape(server).get(LISTED) for _ in range(8)} == {sent}
        assert (directory / "counter_archive.db").exists()
    assert not directory.exists()  # the server's directory goes with it


def test_the_open_streams_gauge_counts_a_stream_whichever_worker_holds_it(gunicorn, alice):
    with gunicorn(workers=2, PARLEY_METRICS_TOKEN=METRICS_TOKEN) as server:
        stream = SseStream(server.port, "/api/v1/events/stream", {"Authorization": f"Bearer {alice.secret}"})
        assert stream.status == 200
        assert {scrape(server)[("parley_open_streams", ())] for _ in range(8)} == {1}
        stream.sock.close()
        until(lambda: scrape(server)[("parley_open_streams", ())] == 0)
        opened = ("parley_requests_total", (("door", "stream"), ("operation", "list_events"), ("outcome", "ok")))
        assert scrape(server)[opened] == 1


def test_an_allowed_peer_reads_and_x_forwarded_for_lets_no_one_in_where_uvicorn_believes_it(gunicorn):
    """The server trusts loopback proxies (FORWARDED_ALLOW_IPS) and so takes the client's address from
    X-Forwarded-For: a request naming an allowed address there must still find nothing."""
    with gunicorn(workers=2, PARLEY_METRICS_ALLOW="127.0.0.1,10.9.9.9", FORWARDED_ALLOW_IPS="127.0.0.1") as server:
        status, _, headers = fresh_request(server, "/metrics")
        assert (status, headers["Content-Type"].split(";")[0]) == (200, "text/plain")
        for named in ("10.9.9.9", "127.0.0.1", "10.9.9.9, 127.0.0.1"):
            status, body, _ = fresh_request(server, "/metrics", headers={"X-Forwarded-For": named})
            assert (status, body["error"]["reason"]) == (404, "not_found")
