"""The benchmark: `python -m bench.run [--threads 100000 --messages 1000000 ...]` (PostgreSQL only).

1. seeds two databases: a small forum (10k messages, `<name>_10k`) and a large one (1M messages, `<name>`);
2. serves both at once and measures read_thread and inbox latency on each, alternating requests, so both
   see the same background load: how the cost grows with the forum;
3. on the large one: throughput and p50/p99 of every operation under concurrent load, the write operations
   in rounds alternating with the floor (bench/floor.py) in the same server;
4. counts the queries each operation runs, in-process, on the large one.
It prints figures and verdicts against the targets of docs/performance.md; it is not a test."""
import argparse
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from urllib.parse import urlsplit

TARGETS = "post >= 0.5x floor; <= 8 queries per post; read_thread(200) and inbox at 1M <= 1.5x their 10k " \
          "latency; MCP post >= 0.9x REST post"
READS = ("read_thread", "inbox", "inbox_since", "list_threads")
# How the cost grows: the reads above, the inbox of a caller's pending decisions, and a text search.
GROWTH = ("read_thread", "inbox", "inbox_since", "inbox_decision", "search")
WRITES = ("floor", "post", "mcp_post")
# The production settings with the floor's URL configuration; a deployment never loads either.
BENCH_SETTINGS = "bench.settings"


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
    parser.add_argument("--seconds", type=float, default=10, help="per operation and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of floor, post, mcp_post")
    parser.add_argument("--workers", type=int, default=None,
                        help="gunicorn workers (default: gunicorn.conf.py's for --serve asgi, 2 x CPUs + 1 for wsgi)")
    parser.add_argument("--serve", choices=["asgi", "wsgi"], default="asgi",
                        help="asgi: the production command as it is; wsgi: the gthread configuration it replaced "
                             "(5 workers x 4 threads here), for comparison")
    parser.add_argument("--latency-requests", type=int, default=300)
    parser.add_argument("--reuse", action="store_true", help="keep already seeded databases")
    parser.add_argument("--load-only", action="store_true",
                        help="with --reuse: only the load and its targets (no growth table, no query counts)")
    parser.add_argument("--seed-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-analyze", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def small_url(url):
    parts = urlsplit(url)
    return url.replace(parts.path, parts.path + "_10k", 1)


def recreate_database(url):
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(url.replace(parts.path, "/postgres", 1), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def setup_django(database_url):
    os.environ.update(DJANGO_SETTINGS_MODULE=BENCH_SETTINGS, DATABASE_URL=database_url,
                      SECRET_KEY=os.environ.get("SECRET_KEY", "benchmark-only-not-a-secret"),
                      ALLOWED_HOSTS="127.0.0.1,testserver", LOG_LEVEL="WARNING")
    import django
    from django.core.management import call_command

    django.setup()
    from django.db import connection

    if connection.vendor != "postgresql":
        sys.exit("the benchmark seeds with COPY: point --database-url at PostgreSQL")
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # as deployed: WhiteNoise serves a manifest


def seed(args, url, threads, messages):
    """Seed the database at `url` in a process of its own (one process, one database)."""
    command = [sys.executable, "-m", "bench.run", "--seed-only", "--database-url", url, "--threads", str(threads),
               "--messages", str(messages), "--tokens", str(args.tokens)]
    if not args.reuse:
        recreate_database(url)
    subprocess.run(command, check=True)


def seed_only(args):
    setup_django(args.database_url)
    from bench.seed import grow_to

    started = time.monotonic()
    size = grow_to(args.threads, args.messages, args.tokens, analyze=not args.no_analyze)
    print(f"{urlsplit(args.database_url).path[1:]}: {size.threads} threads, {size.messages} messages "
          f"({time.monotonic() - started:.1f}s)", flush=True)


def bench_server(args, url):
    """gunicorn with the production settings and config, request logs on, the floor routed (bench/urls.py);
    with --serve wsgi, the WSGI app on gthread workers, as the production command served it before."""
    from bench.server import GunicornServer

    if args.serve == "wsgi":
        return GunicornServer(url, settings_module=BENCH_SETTINGS, workers=args.workers or os.cpu_count() * 2 + 1,
                              threads=4, GUNICORN_APP="parley_site.wsgi:application", GUNICORN_WORKER_CLASS="gthread",
                              ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="INFO")
    return GunicornServer(url, settings_module=BENCH_SETTINGS, workers=args.workers or os.cpu_count(),
                          ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="INFO")


def target_for(server, size, operation, secrets):
    from bench.loadgen import Target
    from forum import cursors

    return Target(port=server.port, operation=operation, secrets=secrets,
                  threads=list(range(2, size.threads + 1, 2)),  # even thread numbers are open (bench/seed.py)
                  big_thread=1, inbox_cursor=cursors.encode("inbox", max(0, size.awaiting_seq - 40)))


def growth(args, sizes, secrets):
    """Latency per read on the small and the large forum, served side by side."""
    from bench.loadgen import interleaved_latency

    urls = [small_url(args.database_url), args.database_url]
    with ExitStack() as stack:
        servers = [stack.enter_context(bench_server(args, url)) for url in urls]
        # A text search scans every message (see docs/performance.md): a few requests tell its cost.
        return {operation: interleaved_latency([target_for(server, size, operation, secrets)
                                                for server, size in zip(servers, sizes)],
                                               20 if operation == "search" else args.latency_requests)
                for operation in GROWTH}


def load_figures(args, size, secrets):
    from bench import report
    from bench.cpu import CpuMeter
    from bench.loadgen import measure

    # Writes are rate limited per token: REST and MCP posts each get their own half of the tokens.
    half = len(secrets) // 2
    tokens = {"floor": secrets, "post": secrets[:half], "mcp_post": secrets[half:]}
    rounds, reads = [], {}
    report.print_load_header(size)
    with bench_server(args, args.database_url) as server:
        meter = CpuMeter(server.process.pid, args.database_url)
        for _ in range(args.rounds):
            rounds.append({})
            for operation in WRITES:
                rounds[-1][operation] = measure(target_for(server, size, operation, tokens[operation]),
                                                args.clients, args.seconds, meter)
                report.print_load_figure(rounds[-1][operation], rounds[-1]["floor"])
        for operation in READS:
            reads[operation] = measure(target_for(server, size, operation, secrets), args.clients, args.seconds,
                                       meter)
            report.print_load_figure(reads[operation], rounds[-1]["floor"])
    return rounds, reads


def main():
    args = arguments()
    if args.seed_only:
        return seed_only(args)
    seed(args, small_url(args.database_url), args.small_threads, args.small_messages)
    seed(args, args.database_url, args.threads, args.messages)
    setup_django(args.database_url)
    from bench import report
    from bench.queries import queries_per_operation
    from bench.seed import bench_secret, current_size

    secrets = [bench_secret(number) for number in range(args.tokens)]
    large = current_size()
    small = current_size(small_url(args.database_url))
    if not args.load_only:
        report.print_growth(small, large, growth(args, (small, large), secrets))
    rounds, _ = load_figures(args, large, secrets)
    if args.load_only:
        return report.print_targets(rounds, None)
    queries = queries_per_operation(secrets, large)
    report.print_queries(queries)
    report.print_targets(rounds, queries)
    print(f"targets: {TARGETS}")


if __name__ == "__main__":
    main()
