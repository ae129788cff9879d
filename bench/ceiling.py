"""Where the write ceiling is (docs/scaling.md): `python -m bench.ceiling [--seconds 8 --clients 16]`.

PostgreSQL only; it drops and recreates its own database (`parley_ceiling` by default). Three parts:

1. **What a global lock on writes costs**, straight on PostgreSQL with psycopg: client threads each run the
   tail of a state-changing write (three statements, commit) as fast as they can, with one
   transaction-level advisory lock taken first (as every such write did before commit-ordered cursors,
   forum.commit_order) and without, `synchronous_commit` on and off: the reference the other parts are
   read against.
2. **Through the production servers**: client processes (bench/loadgen.py) post `ask` (a new thread, which
   takes cursor positions) or plain `note`s (which take none) through HAProxy for `--seconds`, while
   pg_stat_activity is sampled for backends in a transaction and backends waiting on an advisory lock.
   With `--configurations all` they vary one thing at a time: `synchronous_commit`, one app server of two
   workers or two of one, PgBouncer in transaction mode with a pool of 1, 4 or 16 server connections;
   `ratio` (the default) runs ask, note and ask again. The first configuration runs again last, so the
   drift of a shared machine shows; the rounds repeat them all, and each round gives asks over notes.
3. **Correctness under load** (bench/correctness.py): `--writers` writer threads (asks, answers, confirms,
   follow-ups) and `--pollers` cursor pollers (events, inbox, threads) at once through one server of two
   workers, until at least `--writes` writes are acknowledged; every acknowledged write must be seen exactly
   once by each poller, in the list's order.

It prints figures, and the correctness part what went wrong, if anything."""
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

GLOBAL_LOCK = 0x7061726C6579  # the key of the cursor-order lock Parley took before commit-ordered cursors
BENCH_SETTINGS = "bench.settings"


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_CEILING_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/parley_ceiling"))
    parser.add_argument("--seconds", type=float, default=8, help="per configuration")
    parser.add_argument("--clients", type=int, default=16, help="concurrent client processes (threads in part 1)")
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the configurations through the servers")
    parser.add_argument("--configurations", choices=["ratio", "all"], default="ratio")
    parser.add_argument("--writers", type=int, default=16, help="correctness: writer threads")
    parser.add_argument("--pollers", type=int, default=8, help="correctness: cursor pollers")
    parser.add_argument("--writes", type=int, default=20_000, help="correctness: at least this many writes")
    parser.add_argument("--part", choices=["lock", "servers", "correctness", "all"], default="all")
    return parser.parse_args()


def set_synchronous_commit(url, on):
    """For every new session of the database: the servers open one per request (CONN_MAX_AGE=0)."""
    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = {"on" if on else "off"}')


# Part 1: what a global lock on writes costs.

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
                    database.execute("SELECT pg_advisory_xact_lock(%s)", [GLOBAL_LOCK])
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
    print(f"\n1. a global lock on writes alone ({args.clients} client threads, {args.seconds:.0f} s each)", flush=True)
    print(f"   a round trip (SELECT 1) on loopback: {round_trip_ms(args.database_url):.3f} ms", flush=True)
    print(f"   {'synchronous_commit':<20}{'lock':<8}{'writes/s':>10}{'ms per write':>14}", flush=True)
    for synchronous in (True, False):
        for locked in (True, False):
            rate = serialised_tails(args.database_url, args.clients, args.seconds, locked, synchronous)
            print(f"   {('on' if synchronous else 'off'):<20}{('held' if locked else 'none'):<8}{rate:>10.0f}"
                  f"{1000 / rate:>14.3f}", flush=True)


# Part 2: through the production servers.

@dataclass
class Configuration:
    label: str
    operation: str = "ask"
    servers: int = 1
    workers: int = 2
    pool: int | None = None  # PgBouncer's server connections; None: straight to PostgreSQL
    synchronous: bool = True


RATIO = [
    Configuration("ask, 1 server x 2 workers"),
    Configuration("note, 1 server x 2 workers", operation="post"),
    Configuration("ask, 1 server x 2 workers (again)"),
]
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
    configurations = RATIO if args.configurations == "ratio" else CONFIGURATIONS
    print(f"\n2. through the production servers ({args.clients} client processes, {args.seconds:.0f} s each, "
          f"{args.rounds} rounds)", flush=True)
    print(f"   {'configuration':<36}{'writes/s':>9}{'x first':>8}{'p50 ms':>8}{'p99 ms':>8}{'cpu ms':>8}"
          f"{'in tx':>7}{'on lock':>8}{'load':>6}  failures", flush=True)
    ratios = {configuration.label: [] for configuration in configurations}
    asks_over_notes, most_on_lock = [], 0.0
    for _ in range(args.rounds):
        first, throughput = None, {}
        for configuration in configurations:
            figures, in_transaction, on_lock = one_configuration(args, configuration, size, secrets)
            first = first or figures
            throughput[configuration.label] = figures.throughput
            most_on_lock = max(most_on_lock, on_lock)
            ratios[configuration.label].append(figures.throughput / first.throughput)
            print(f"   {configuration.label:<36}{figures.throughput:>9.1f}{ratios[configuration.label][-1]:>8.2f}"
                  f"{figures.p50_ms:>8.1f}{figures.p99_ms:>8.1f}{figures.cpu_ms_per_request:>8.2f}"
                  f"{in_transaction:>7.1f}{on_lock:>8.1f}{os.getloadavg()[0]:>6.1f}  {figures.failures or ''}",
                  flush=True)
        asks = [rate for label, rate in throughput.items() if label.startswith("ask, 1 server x 2 workers")]
        asks_over_notes.append(statistics.mean(asks) / throughput["note, 1 server x 2 workers"])
    set_synchronous_commit(args.database_url, True)
    print("\n   throughput over the first configuration of the same round, median over the rounds:", flush=True)
    for label, found in ratios.items():
        print(f"   {label:<36}{statistics.median(found):>8.2f}  ({min(found):.2f}-{max(found):.2f})", flush=True)
    print(f"   asks / notes (the mean of a round's two ask runs over its note run): "
          f"{', '.join(f'{ratio:.2f}' for ratio in asks_over_notes)}; the most backends waiting on an advisory "
          f"lock, on average over a run: {most_on_lock:.2f}", flush=True)


# Part 3: correctness under load.

def correctness_part(args):
    from django.db import connection

    from bench import correctness
    from bench.server import GunicornServer, HttpAgent
    from forum.actors import Actor
    from forum.tokens import token_create

    operator = Actor.for_operator("bench")

    def secret(handle, rights=("read", "write")):
        return token_create(operator, handle, set(rights), "")[1]

    lines = [correctness.Line(secret(f"asker{n}"), secret(f"answerer{n}"), secret(f"mod{n}", ("read", "write", "lock")))
             for n in range(args.writers)]
    watcher = secret("watcher", ("read",))
    kinds = ["events", "inbox", "threads"]
    pollers = {f"{kinds[n % 3]} {n}": kinds[n % 3] for n in range(args.pollers)}
    rounds = -(-args.writes // (args.writers * correctness.WRITES_PER_ROUND))
    print(f"\n3. correctness: {args.writers} writers x {rounds} rounds x {correctness.WRITES_PER_ROUND} writes, "
          f"{args.pollers} cursor pollers, one server of two workers", flush=True)
    agents = threading.local()
    environment = {"SECRET_KEY": os.environ.get("SECRET_KEY", "benchmark-only-not-a-secret"),
                   "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING", "PARLEY_WRITES_PER_MINUTE": str(10**6)}
    with GunicornServer(args.database_url, workers=2, settings_module=BENCH_SETTINGS, **environment) as server:
        def request(method, path, body, secret):
            if not hasattr(agents, "agent"):
                agents.agent = HttpAgent(server, None)
            agents.agent.secret = secret
            status, answer, _ = agents.agent.request(method, path, body)
            return status, answer
        stop, samples = threading.Event(), []
        sampler = threading.Thread(target=advisory_waits, args=(args.database_url, stop, samples))
        sampler.start()
        try:
            outcome = correctness.run(request, lines, rounds, pollers, watcher)
        finally:
            stop.set()
            sampler.join()
    with connection.cursor() as cursor:
        def query(sql):
            cursor.execute(sql)
            return cursor.fetchall()
        found = correctness.problems(outcome, pollers, query)
    on_lock = max((waiting for _, waiting in samples), default=0)
    rate = outcome.writes / outcome.seconds
    print(f"   {outcome.writes} writes acknowledged in {outcome.seconds:.0f} s ({rate:.0f}/s), "
          f"{len(outcome.failures)} refused or failed; the most backends waiting on an advisory lock at once: "
          f"{on_lock}", flush=True)
    print(f"   items seen per poller: {correctness.seen_counts(outcome)}", flush=True)
    verdict = found or "every acknowledged write seen exactly once by each poller, in the list's order"
    print(f"   {verdict}", flush=True)


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
    if args.part in ("correctness", "all"):
        correctness_part(args)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end", flush=True)


if __name__ == "__main__":
    main()
