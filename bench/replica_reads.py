"""Reads served by a streaming replica against reads served by the primary (docs/scaling.md, "Reads from
replicas"): `python -m bench.replica_reads [--reads 2000 --clients 4]`.

It makes its own primary cluster and a hot standby of it (`pg_basebackup -R`, PostgreSQL's server binaries;
as root they run as the `postgres` user), seeds a forum through the API, then lets `--clients` lines that never
wrote read the same list page (`list_threads`, 50 threads with their bodies' first lines) through one
production server, first with no replica configured (the primary serves), then with the standby as
`DATABASE_URL_REPLICAS` (the replica serves; authentication still reads the token row on the primary). For
each it gives the CPU seconds per read of each database cluster (its postmaster and every process under it,
those that exited too) and of the app server, and the wall-clock rate. It also measures the statement
timeout's toll on a bare read (issue 26): BEGIN, SET LOCAL, the query, COMMIT, against the SET LOCAL sent
in the query's own message.

It prints figures, not verdicts."""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg

from bench.cluster import postgres_os_user
from bench.cpu import TICKS, children
from bench.server import PROJECT_ROOT, GunicornServer, HttpAgent


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=2000, help="reads per configuration, all clients together")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--threads", type=int, default=200, help="threads seeded")
    parser.add_argument("--rounds", type=int, default=2)
    return parser.parse_args()


def cluster_seconds(data):
    """CPU seconds of a cluster so far: its postmaster, the children it reaped, and those still running."""
    postmaster = int((Path(data) / "postmaster.pid").read_text().split()[0])
    fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    for pid in children(postmaster):
        try:
            child = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(child[11]) + int(child[12])
    return ticks / TICKS


def server_seconds(server):
    ticks = 0
    for pid in [server.process.pid, *children(server.process.pid)]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(value) for value in fields[11:15])
    return ticks / TICKS


def manage(url, *command):
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "parley_site.settings_test", "DATABASE_URL": url}
    result = subprocess.run([sys.executable, "manage.py", *command], cwd=PROJECT_ROOT, env=environment,
                            capture_output=True, text=True, check=True)
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""


def read_many(server, secrets, reads):
    """`reads` GETs of the same page, split over one keep-alive client per secret; the wall time."""
    def client(secret, count):
        agent = HttpAgent(server, secret)
        for _ in range(count):
            status, _, _ = agent.get("/api/v1/threads?limit=50")
            assert status == 200
        agent.close()
    workers = [threading.Thread(target=client, args=(secret, reads // len(secrets))) for secret in secrets]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.monotonic() - started


def measure(label, server, secrets, reads, primary, standby):
    read_many(server, secrets, min(200, reads))  # warm: connections, caches
    before = (cluster_seconds(primary.data), cluster_seconds(standby.data), server_seconds(server))
    wall = read_many(server, secrets, reads)
    after = (cluster_seconds(primary.data), cluster_seconds(standby.data), server_seconds(server))
    primary_cpu, standby_cpu, app_cpu = (1000 * (end - start) / reads for start, end in zip(before, after))
    print(f"| {label} | {reads / wall:.0f} | {primary_cpu:.3f} | {standby_cpu:.3f} | {app_cpu:.2f} |", flush=True)


def timeout_toll(url, count=1000, rounds=7):
    """Per bare read (one indexed row): ms of wall time, of the client's CPU and of its backend's CPU, each
    way, the ways interleaved round by round so that a shared machine's drift hits them alike; medians."""
    with psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor) as link:
        backend = link.info.backend_pid
        query = "SELECT oid FROM pg_class WHERE oid = 1259"
        ways = {
            "BEGIN; SET LOCAL; query; COMMIT (4 round trips)": lambda: (
                link.execute("BEGIN"), link.execute("SET LOCAL statement_timeout = 5000"),
                link.execute(query).fetchall(), link.execute("COMMIT")),
            "SET LOCAL in the query's message (1 round trip)": lambda: (
                (cursor := link.execute(f"SET LOCAL statement_timeout = 5000; {query}")).nextset(),
                cursor.fetchall()),
            "the query alone, no timeout (1 round trip)": lambda: link.execute(query).fetchall(),
        }
        figures = {name: [] for name in ways}
        for _ in range(rounds):
            for name, way in ways.items():
                started, cpu, server = time.perf_counter(), time.process_time(), process_seconds(backend)
                for _ in range(count):
                    way()
                figures[name].append((time.perf_counter() - started, time.process_time() - cpu,
                                      process_seconds(backend) - server))
        for name, taken in figures.items():
            wall, client, server = (1000 * statistics.median(column) / count for column in zip(*taken))
            print(f"| {name} | {wall:.3f} | {client:.3f} | {server:.3f} |", flush=True)


def process_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def main():
    from tests.production.private_cluster import PrivateCluster, Standby, postgresql_binaries

    options = arguments()
    with PrivateCluster(postgresql_binaries(), postgres_os_user()) as primary:
        manage(primary.url, "migrate", "--verbosity=0")
        writer = manage(primary.url, "parley_token", "create", "seeder", "--rights", "read,write")
        readers = [manage(primary.url, "parley_token", "create", f"reader{n}") for n in range(options.clients)]
        with GunicornServer(primary.url, workers=1, PARLEY_WRITES_PER_MINUTE=10**6) as server:
            agent = HttpAgent(server, writer)
            for n in range(options.threads):
                status, _, _ = agent.post({"kind": "ask", "body": f"Seeded question {n}: " + "words " * 60})
                assert status == 201
            agent.close()
        with Standby(primary) as standby:
            print(f"load average before: {os.getloadavg()}")
            print("\n| reads served by | reads/s | primary ms CPU/read | standby ms CPU/read | app ms CPU/read |")
            print("|---|---|---|---|---|")
            environment = {"CONN_MAX_AGE": 60}
            for _ in range(options.rounds):
                with GunicornServer(primary.url, workers=1, **environment) as server:
                    measure("primary", server, readers, options.reads, primary, standby)
                with GunicornServer(primary.url, workers=1, DATABASE_URL_REPLICAS=standby.url, **environment) as server:
                    measure("replica", server, readers, options.reads, primary, standby)
            print(f"load average after: {os.getloadavg()}")
        print("\n| a bare read | ms wall | ms client CPU | ms backend CPU |\n|---|---|---|---|")
        timeout_toll(primary.url)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--toll-only"]:  # against a running server: --toll-only postgres://...
        timeout_toll(sys.argv[2])
    else:
        main()
