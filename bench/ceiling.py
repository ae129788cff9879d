"""Where the write ceiling is (docs/scaling.md): `python -m bench.ceiling [--seconds 8 --clients 16]`.

PostgreSQL only; it drops and recreates its own database (`parley_ceiling` by default). Two parts:

1. **The cursor-order lock alone**, straight on PostgreSQL with psycopg: client threads each run the tail of a
   state-changing write (take the transaction-level advisory lock, three statements, commit) as fast as
   they can, with the lock and without, `synchronous_commit` on and off. Without the app in the way this
   is the most such writes per second the lock lets through on this machine, and 1 / that rate is how long
   each one holds it.
2. **Through the production servers**: client processes (bench/loadgen.py) post `ask` (a new thread, which
   takes cursor positions) or plain `note`s (which take none) through HAProxy for `--seconds`, while
   pg_stat_activity is sampled for backends waiting on an advisory lock. The configurations vary one
   thing at a time: `synchronous_commit`, one app server of two workers or two of one, PgBouncer in
   transaction mode with a pool of 1, 4 or 16 server connections. The first configuration runs again
   last, so the drift of a shared machine shows; the rounds repeat them all, and each figure is also given as
   a ratio to the first configuration of its round.

3. **How long one ask holds the lock**, inside the request: asks one at a time through the whole request
   stack in this process, timed from the statement that takes the lock to the end of the commit. 1 / that
   time is the ceiling of state-changing writes for the whole forum, however many servers serve it.

It prints figures, not verdicts."""
import argparse
import os
import statistics
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from urllib.parse import urlsplit

import psycopg

from bench.cpu import CpuMeter, children

CURSOR_ORDER_LOCK = 0x7061726C6579  # forum.sequences.CURSOR_ORDER_LOCK; repeated so that part 1 needs no Django
BENCH_SETTINGS = "bench.settings"


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_CEILING_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/parley_ceiling"))
    parser.add_argument("--seconds", type=float, default=8, help="per configuration")
    parser.add_argument("--clients", type=int, default=16, help="concurrent client processes (threads in part 1)")
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the configurations through the servers")
    parser.add_argument("--part", choices=["lock", "servers", "hold", "all"], default="all")
    return parser.parse_args()


def set_synchronous_commit(url, on):
    """For every new session of the database: the servers open one per request (CONN_MAX_AGE=0)."""
    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = {"on" if on else "off"}')


# Part 1: the cursor-order lock alone.

def serialised_tails(url, clients, seconds, locked, synchronous):
    """Writes per second of `clients` threads each committing lock + 3 statements in a loop."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("CREATE UNLOGGED TABLE IF NOT EXISTS ceiling_probe (id bigserial, n int, at timestamptz)")
        admin.execute("TRUNCATE ceiling_probe")
    counts, deadline = [0] * clients, time.monotonic() + seconds

    def client(number):
        with psycopg.connect(url) as database:
            database.execute(f"SET synchronous_commit = {'on' if synchronous else 'off'}")
            database.commit()
            while time.monotonic() < deadline:
                if locked:
                    database.execute("SELECT pg_advisory_xact_lock(%s)", [CURSOR_ORDER_LOCK])
                for _ in range(3):  # the INSERT of the message, the UPDATE of the thread, the INSERT of the event
                    database.execute("INSERT INTO ceiling_probe (n, at) VALUES (%s, now())", [number])
                database.commit()
                counts[number] += 1

    workers = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.monotonic() - started)


def round_trip_ms(url, repeat=2000):
    with psycopg.connect(url, autocommit=True) as database:
        started = time.perf_counter()
        for _ in range(repeat):
            database.execute("SELECT 1")
        return (time.perf_counter() - started) * 1000 / repeat


def lock_part(args):
    print(f"\n1. the cursor-order lock alone ({args.clients} client threads, {args.seconds:.0f} s each)", flush=True)
    print(f"   a round trip (SELECT 1) on loopback: {round_trip_ms(args.database_url):.3f} ms", flush=True)
    print(f"   {'synchronous_commit':<20}{'lock':<8}{'writes/s':>10}{'ms per write':>14}", flush=True)
    for synchronous in (True, False):
        for locked in (True, False):
            rate = serialised_tails(args.database_url, args.clients, args.seconds, locked, synchronous)
            print(f"   {('on' if synchronous else 'off'):<20}{('held' if locked else 'none'):<8}{rate:>10.0f}"
                  f"{1000 / rate:>14.3f}", flush=True)


# Part 3: how long one ask holds the lock, measured inside the request.

def lock_holds(secrets, requests):
    """Asks through the whole request stack in this process, one at a time: per ask, the seconds from the
    statement that takes the cursor-order lock to the end of the commit, and the request's own seconds."""
    from django.db import connection, transaction
    from django.test import Client

    holds, totals = [], []

    def timed(execute, sql, params, many, context):
        if "pg_advisory_xact_lock" in sql:
            taken = time.perf_counter()
            transaction.on_commit(lambda: holds.append(time.perf_counter() - taken))
        return execute(sql, params, many, context)

    client = Client()
    with connection.execute_wrapper(timed):
        for number in range(requests):
            started = time.perf_counter()
            answer = client.post("/api/v1/messages", {"kind": "ask", "body": f"how long {number}"},
                                 content_type="application/json",
                                 HTTP_AUTHORIZATION=f"Bearer {secrets[number % len(secrets)]}")
            assert answer.status_code == 201, answer.content
            totals.append(time.perf_counter() - started)
    return holds, totals


def hold_part(args, secrets):
    from django.db import connection

    print("\n3. how long one ask holds the cursor-order lock (in-process, one ask at a time, 200 asks)", flush=True)
    print(f"   {'synchronous_commit':<20}{'held p50 ms':>12}{'held mean':>10}{'request p50':>12}"
          f"{'held / request':>15}{'1 / held (writes/s)':>21}", flush=True)
    for synchronous in (True, False):
        set_synchronous_commit(args.database_url, synchronous)
        connection.close()  # the next session reads the database's new default
        holds, totals = lock_holds(secrets, 200)
        held, total = statistics.median(holds), statistics.median(totals)
        print(f"   {('on' if synchronous else 'off'):<20}{held * 1000:>12.2f}{statistics.mean(holds) * 1000:>10.2f}"
              f"{total * 1000:>12.2f}{held / total:>15.2f}{1 / statistics.mean(holds):>21.0f}", flush=True)
    set_synchronous_commit(args.database_url, True)
    connection.close()


# Part 2: through the production servers.

@dataclass
class Configuration:
    label: str
    operation: str = "ask"
    servers: int = 1
    workers: int = 2
    pool: int | None = None  # PgBouncer's server connections; None: straight to PostgreSQL
    synchronous: bool = True


CONFIGURATIONS = [
    Configuration("ask, 1 server x 2 workers"),
    Configuration("note, 1 server x 2 workers", operation="post"),
    Configuration("ask, synchronous_commit off", synchronous=False),
    Configuration("ask, 2 servers x 1 worker", servers=2, workers=1),
    Configuration("ask, 2 x 1, PgBouncer pool 1", servers=2, workers=1, pool=1),
    Configuration("ask, 2 x 1, PgBouncer pool 4", servers=2, workers=1, pool=4),
    Configuration("ask, 2 x 1, PgBouncer pool 16", servers=2, workers=1, pool=16),
    Configuration("ask, 1 server x 2 workers (again)"),
]


class ClusterMeter(CpuMeter):
    """CPU seconds of every app server's workers, of the proxies and of the database's backends."""

    def __init__(self, processes, database_url):
        super().__init__(None, database_url)
        self.processes = processes

    def server_processes(self):
        return [pid for process in self.processes for pid in [process.pid, *children(process.pid)]]


def advisory_waits(url, stop, samples):
    """Every 0.1 s until `stop` is set: (backends of the database in a transaction, those waiting on an
    advisory lock)."""
    with psycopg.connect(url, autocommit=True) as admin:
        while not stop.is_set():
            samples.append(admin.execute(
                "SELECT count(*) FILTER (WHERE state LIKE 'idle in transaction%%' OR state = 'active'),"
                " count(*) FILTER (WHERE wait_event = 'advisory') FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone())
            time.sleep(0.1)


def serve(stack, configuration, url):
    from bench.cluster import HAProxy, PgBouncer, postgres_os_user
    from bench.server import GunicornServer

    environment = {"SECRET_KEY": os.environ.get("SECRET_KEY", "benchmark-only-not-a-secret"),
                   "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING", "PARLEY_WRITES_PER_MINUTE": str(10**6)}
    served, extra = url, []
    if configuration.pool is not None:
        bouncer = stack.enter_context(PgBouncer(url, postgres_os_user(), pool_size=configuration.pool))
        served, environment["DATABASE_URL_DIRECT"] = bouncer.url(url), url
        extra.append(bouncer.process)
    servers = [stack.enter_context(GunicornServer(served, workers=configuration.workers,
                                                  settings_module=BENCH_SETTINGS, **environment))
               for _ in range(configuration.servers)]
    balancer = stack.enter_context(HAProxy(servers))
    return balancer, [server.process for server in servers] + extra + [balancer.process]


def one_configuration(args, configuration, size, secrets):
    """Figures of one configuration, and the mean backends in a transaction and waiting on the lock."""
    from bench.loadgen import Target, measure

    set_synchronous_commit(args.database_url, configuration.synchronous)
    with ExitStack() as stack:
        balancer, processes = serve(stack, configuration, args.database_url)
        target = Target(port=balancer.port, operation=configuration.operation, secrets=secrets,
                        threads=list(range(2, size.threads + 1, 2)), big_thread=1, inbox_cursor="")
        stop, samples = threading.Event(), []
        sampler = threading.Thread(target=advisory_waits, args=(args.database_url, stop, samples))
        sampler.start()
        try:
            figures = measure(target, args.clients, args.seconds, ClusterMeter(processes, args.database_url))
        finally:
            stop.set()
            sampler.join()
    in_transaction = statistics.mean(busy for busy, _ in samples) if samples else float("nan")
    on_lock = statistics.mean(waiting for _, waiting in samples) if samples else float("nan")
    return figures, in_transaction, on_lock


def servers_part(args, size, secrets):
    print(f"\n2. through the production servers ({args.clients} client processes, {args.seconds:.0f} s each, "
          f"{args.rounds} rounds)", flush=True)
    print(f"   {'configuration':<36}{'writes/s':>9}{'x first':>8}{'p50 ms':>8}{'p99 ms':>8}{'cpu ms':>8}"
          f"{'in tx':>7}{'on lock':>8}  failures", flush=True)
    ratios = {configuration.label: [] for configuration in CONFIGURATIONS}
    for _ in range(args.rounds):
        first = None
        for configuration in CONFIGURATIONS:
            figures, in_transaction, on_lock = one_configuration(args, configuration, size, secrets)
            first = first or figures
            ratios[configuration.label].append(figures.throughput / first.throughput)
            print(f"   {configuration.label:<36}{figures.throughput:>9.1f}{ratios[configuration.label][-1]:>8.2f}"
                  f"{figures.p50_ms:>8.1f}{figures.p99_ms:>8.1f}{figures.cpu_ms_per_request:>8.2f}"
                  f"{in_transaction:>7.1f}{on_lock:>8.1f}  {figures.failures or ''}", flush=True)
    set_synchronous_commit(args.database_url, True)
    print("\n   throughput over the first configuration of the same round, median over the rounds:", flush=True)
    for label, found in ratios.items():
        print(f"   {label:<36}{statistics.median(found):>8.2f}  ({min(found):.2f}-{max(found):.2f})", flush=True)


def main():
    args = arguments()
    from bench.run import recreate_database, setup_django

    recreate_database(args.database_url)
    setup_django(args.database_url)
    from bench.seed import bench_secret, grow_to

    size = grow_to(500, 1500, args.tokens)
    print(f"forum: {size.threads} threads, {size.messages} messages, {size.tokens} tokens; "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    secrets = [bench_secret(number) for number in range(args.tokens)]
    if args.part in ("lock", "all"):
        lock_part(args)
    if args.part in ("servers", "all"):
        servers_part(args, size, secrets)
    if args.part in ("hold", "all"):
        hold_part(args, secrets)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end", flush=True)


if __name__ == "__main__":
    main()
