"""The benchmark: `python -m bench.run [--threads 100000 --messages 1000000 ...]` (PostgreSQL only).

1. seeds a small forum (10k messages), measures read_thread and inbox latency on it;
2. grows it to the full size (1M messages), measures them again, then throughput and p50/p99 of every
   operation under concurrent load, and the floor (bench/floor.py) in the same server;
3. counts the queries each operation runs, in-process, at the full size.
It prints figures and verdicts against the targets of docs/performance.md; it is not a test."""
import argparse
import os
import sys
import time
from urllib.parse import urlsplit

TARGETS = "post >= 0.5x floor; <= 8 queries per post; read_thread(200) and inbox at 1M <= 1.5x their 10k " \
          "latency; MCP post >= 0.9x REST post"


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/parley_bench"))
    parser.add_argument("--threads", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--small-threads", type=int, default=1_000)
    parser.add_argument("--small-messages", type=int, default=10_000)
    parser.add_argument("--tokens", type=int, default=3_000)
    parser.add_argument("--clients", type=int, default=8, help="concurrent client processes")
    parser.add_argument("--seconds", type=float, default=10, help="per operation")
    parser.add_argument("--workers", type=int, default=None, help="gunicorn workers (default: its config's)")
    parser.add_argument("--worker-threads", type=int, default=4)
    parser.add_argument("--latency-requests", type=int, default=300)
    parser.add_argument("--reuse", action="store_true",
                        help="keep an already seeded database (skips the 10k figures when it is larger)")
    return parser.parse_args()


def setup_django(database_url):
    os.environ.update(DJANGO_SETTINGS_MODULE="parley_site.settings", DATABASE_URL=database_url,
                      SECRET_KEY=os.environ.get("SECRET_KEY", "benchmark-only-not-a-secret"),
                      ALLOWED_HOSTS="127.0.0.1,testserver", PARLEY_BENCH_FLOOR="1", LOG_LEVEL="WARNING")
    import django
    from django.core.management import call_command

    django.setup()
    from django.db import connection

    if connection.vendor != "postgresql":
        sys.exit("the benchmark seeds with COPY: point --database-url at PostgreSQL")
    call_command("migrate", verbosity=0)


def bench_server(args):
    """gunicorn with the production settings and config, request logs on, the floor mounted."""
    from bench.server import GunicornServer

    return GunicornServer(args.database_url, settings_module="parley_site.settings",
                          workers=args.workers or os.cpu_count() * 2 + 1, threads=args.worker_threads,
                          ALLOWED_HOSTS="127.0.0.1", PARLEY_BENCH_FLOOR="1", LOG_LEVEL="INFO")


def target_for(server, size, operation, secrets):
    from bench.loadgen import Target
    from forum import cursors

    return Target(port=server.port, operation=operation, secrets=secrets,
                  threads=list(range(2, size.threads + 1, 2)),  # even thread numbers are open (bench/seed.py)
                  big_thread=1, inbox_cursor=cursors.encode("inbox", max(0, size.awaiting_seq - 40)))


def latencies_at(args, size, secrets):
    from bench.loadgen import sequential_latency

    with bench_server(args) as server:
        return {operation: sequential_latency(target_for(server, size, operation, secrets), args.latency_requests)
                for operation in ("read_thread", "inbox", "inbox_since")}


def recreate_database(url):
    """The benchmark owns its database: it starts from nothing unless --reuse."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(url.replace(parts.path, "/postgres", 1), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def seeded(label, grow):
    started = time.monotonic()
    size = grow()
    print(f"{label}: {size.threads} threads, {size.messages} messages, {time.monotonic() - started:.1f}s",
          flush=True)
    return size


def main():
    args = arguments()
    if not args.reuse:
        recreate_database(args.database_url)
    setup_django(args.database_url)
    from bench import report, seed
    from bench.queries import queries_per_operation

    secrets = [seed.bench_secret(number) for number in range(args.tokens)]
    at_small = None
    if seed.current_size().messages <= args.small_messages:
        small = seeded("seeded", lambda: seed.grow_to(args.small_threads, args.small_messages, args.tokens))
        at_small = latencies_at(args, small, secrets)
        report.print_latencies(f"{small.messages} messages", at_small)
    large = seeded("grown to", lambda: seed.grow_to(args.threads, args.messages, args.tokens))
    at_large = latencies_at(args, large, secrets)
    report.print_latencies(f"{large.messages} messages", at_large)
    if at_small:
        report.print_growth(at_small, at_large)
    figures = load_figures(args, large, secrets)
    queries = queries_per_operation(secrets[0], large)
    report.print_queries(queries)
    report.print_targets(figures, queries)
    print(f"targets: {TARGETS}")


def load_figures(args, size, secrets):
    from bench import report
    from bench.loadgen import measure

    # Writes are rate limited per token: REST and MCP posts each get their own half of the tokens.
    half = len(secrets) // 2
    plan = [("floor", secrets), ("post", secrets[:half]), ("mcp_post", secrets[half:]), ("read_thread", secrets),
            ("inbox", secrets), ("inbox_since", secrets), ("list_threads", secrets)]
    figures = {}
    report.print_load_header(size)
    with bench_server(args) as server:
        for operation, tokens in plan:
            figures[operation] = measure(target_for(server, size, operation, tokens), args.clients, args.seconds)
            report.print_load_figure(figures[operation], figures["floor"].throughput)
    return figures


if __name__ == "__main__":
    main()
