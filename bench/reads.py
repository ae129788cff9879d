"""The read benchmark: `python -m bench.reads [--reuse] [--clients 1 16] [--seconds 5] [--rounds 2]`
(PostgreSQL only; docs/performance.md, "Reads against the read floor").

1. Seeds (or with --reuse keeps) the benchmark's two forums, as bench/run.py does: 10k messages and
   `--messages` (1M by default), and gives each one claim, so that read_claim has something to read.
2. **Growth**: serves both side by side and sends every read to each in turn, one request at a time; p50 per
   size and the ratio (target: <= 1.2).
3. **Against the read floor** (bench/read_floor.py) on the large forum: at each client count, in rounds, the
   floor first, then every read over REST and over MCP (`tools/call`), each for `--seconds`: throughput,
   p50, and the server CPU per request (gunicorn workers and their PostgreSQL backends, bench/cpu.py), each
   as a ratio to the floor of the same round (x floor: how many floors one read costs; targets: CPU <= 1.5,
   MCP / REST <= 1.1). Medians over the rounds close each client count.

4. `--part plans` (on a database seeded with `python -m bench.run --seed-only --no-analyze`, or any): the
   plan of each read's query and its execution time, before and after jobs.statistics analyzed what had
   changed (docs/performance.md, "Plans").

It prints figures, not verdicts beyond the targets' marks."""
import argparse
import os
import statistics
from contextlib import ExitStack

READS = ("inbox", "inbox_since", "list_threads", "search", "read_thread", "read_message", "list_events",
         "whoami", "read_claim")
CPU_TARGET, MCP_TARGET, GROWTH_TARGET = 1.5, 1.1, 1.2
# The tokens the reads rotate through: agents that read all day, each token read with every few seconds, so
# that a read writes its token's last use once a minute (forum.tokens.record_use), as in a deployment; with
# thousands of tokens each would be a minute apart and every read would pay that UPDATE.
READING_TOKENS = 64


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/parley_bench"))
    parser.add_argument("--threads", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--small-threads", type=int, default=1_000)
    parser.add_argument("--small-messages", type=int, default=10_000)
    parser.add_argument("--tokens", type=int, default=3_000)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--seconds", type=float, default=5, help="per read, door and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--growth-requests", type=int, default=200)
    parser.add_argument("--reads", nargs="+", default=list(READS), choices=READS)
    parser.add_argument("--part", choices=["growth", "floor", "plans", "all"], default="all")
    parser.add_argument("--reuse", action="store_true", help="keep already seeded databases")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--serve", choices=["asgi", "wsgi"], default="asgi")
    return parser.parse_args()


def one_claim(server, secret):
    """The id of a claim on the forum `server` serves, asserted now (by the token of `secret`, on thread 2)
    if there is none yet."""
    from bench.server import HttpAgent

    agent = HttpAgent(server, secret)
    try:
        status, found, _ = agent.get("/api/v1/claims?limit=1")
        assert status == 200, found
        if not found["items"]:
            status, found, _ = agent.post({"kind": "assert", "thread": "th_2", "body": "The benchmark reads this."})
            assert status == 201, found
            return int(found["claim"]["id"].removeprefix("cl_"))
        return int(found["items"][0]["id"].removeprefix("cl_"))
    finally:
        agent.close()


def target_for(server, size, operation, secrets, claim):
    from bench.run import target_for as write_target

    target = write_target(server, size, operation, secrets)
    target.message, target.claim = 2, claim  # message 2 is the second of th_1 (bench/seed.py)
    return target


def growth(args, urls, sizes, secrets):
    from bench.loadgen import interleaved_latency
    from bench.run import bench_server

    print(f"\ngrowth: p50 of {args.growth_requests} sequential requests, "
          f"{sizes[0].messages} vs {sizes[1].messages} messages, alternating (REST; load average "
          f"{os.getloadavg()[0]:.1f})", flush=True)
    print(f"| read | {sizes[0].messages} | {sizes[1].messages} | ratio |\n|---|---|---|---|", flush=True)
    with ExitStack() as stack:
        servers = [stack.enter_context(bench_server(args, url)) for url in urls]
        claims = [one_claim(server, secrets[1]) for server in servers]
        for operation in ("read_floor", *args.reads):
            small, large = interleaved_latency([target_for(server, size, operation, secrets, claim)
                                                for server, size, claim in zip(servers, sizes, claims)],
                                               args.growth_requests)
            ratio = large / small
            mark = "" if operation == "read_floor" else (" ✔" if ratio <= GROWTH_TARGET else " ✘")
            print(f"| {operation} | {small:.2f} ms | {large:.2f} ms | {ratio:.2f}{mark} |", flush=True)


def against_floor(args, size, secrets):
    from bench.cpu import CpuMeter
    from bench.loadgen import measure
    from bench.run import bench_server

    secrets = secrets[:READING_TOKENS]
    with bench_server(args, args.database_url) as server:
        claim = one_claim(server, secrets[1])
        meter = CpuMeter(server.process.pid, args.database_url)
        for clients in args.clients:
            print(f"\n{clients} client(s), {args.seconds:.0f} s per read and door, {args.rounds} rounds, "
                  f"{size.messages} messages; load average {os.getloadavg()[0]:.1f}", flush=True)
            print(f"{'read':<22}{'req/s':>8}{'p50 ms':>8}{'cpu ms':>8}{'x floor wall':>13}{'x floor cpu':>12}",
                  flush=True)
            rounds = []
            for _ in range(args.rounds):
                figures = {}
                for operation in ("read_floor", *(f"{door}{read}" for read in args.reads for door in ("", "mcp_"))):
                    figures[operation] = measure(target_for(server, size, operation, secrets, claim), clients,
                                                 args.seconds, meter)
                    print_line(figures[operation], figures["read_floor"])
                rounds.append(figures)
            print_medians(clients, rounds, args.reads)


def print_line(figure, floor):
    print(f"{figure.operation:<22}{figure.throughput:>8.1f}{figure.p50_ms:>8.2f}{figure.cpu_ms_per_request:>8.2f}"
          f"{floor.throughput / figure.throughput:>13.2f}{figure.cpu_ms_per_request / floor.cpu_ms_per_request:>12.2f}"
          f"  {figure.failures or ''}", flush=True)


def median_ratio(rounds, operation, by_cpu, denominator="read_floor"):
    """The median over the rounds of how many `denominator`s one `operation` costs, in the same round."""
    if by_cpu:
        return statistics.median(r[operation].cpu_ms_per_request / r[denominator].cpu_ms_per_request
                                 for r in rounds)
    return statistics.median(r[denominator].throughput / r[operation].throughput for r in rounds)


def print_medians(clients, rounds, reads):
    print(f"\nmedians over {len(rounds)} rounds at {clients} client(s); the floor: "
          f"{statistics.median(r['read_floor'].throughput for r in rounds):.0f} req/s, "
          f"{statistics.median(r['read_floor'].cpu_ms_per_request for r in rounds):.2f} ms CPU per request")
    print("| read | REST x floor (wall, CPU) | MCP x floor (wall, CPU) | MCP / REST (wall, CPU) |\n"
          "|---|---|---|---|")
    for read in reads:
        rest = [median_ratio(rounds, read, by_cpu) for by_cpu in (False, True)]
        mcp = [median_ratio(rounds, f"mcp_{read}", by_cpu) for by_cpu in (False, True)]
        door = [median_ratio(rounds, f"mcp_{read}", by_cpu, denominator=read) for by_cpu in (False, True)]
        marks = [" ✔" if rest[1] <= CPU_TARGET else " ✘", " ✔" if mcp[1] <= CPU_TARGET else " ✘",
                 " ✔" if door[1] <= MCP_TARGET else " ✘"]
        print(f"| {read} | {rest[0]:.2f}, {rest[1]:.2f}{marks[0]} | {mcp[0]:.2f}, {mcp[1]:.2f}{marks[1]} | "
              f"{door[0]:.2f}, {door[1]:.2f}{marks[2]} |", flush=True)


PLANNED = {  # read -> (a path of it, the table of its page's query)
    "inbox": ("/api/v1/inbox", "forum_thread"),
    "list_threads": ("/api/v1/threads", "forum_thread"),
    "list_threads state=open": ("/api/v1/threads?state=open", "forum_thread"),
    "list_events": ("/api/v1/events", "forum_stateevent"),
    "list_events of th_50000": ("/api/v1/threads/th_50000/events", "forum_stateevent"),
    "read_thread th_1": ("/api/v1/threads/th_1", "forum_message"),
}


def plan_summary(secret, path, table):
    """The plan's nodes, outermost first, and its execution time, for the query on `table` GET `path` runs."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert Client(HTTP_AUTHORIZATION=f"Bearer {secret}").get(path).status_code == 200
    (sql,) = [query["sql"] for query in queries if f'FROM "{table}"' in query["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
        explained = cursor.fetchone()[0][0]
    steps, plan = [], explained["Plan"]
    while plan:
        steps.append(plan["Node Type"] + (f" ({plan['Index Name']})" if "Index Name" in plan else ""))
        plan = plan.get("Plans", [None])[0]
    return " > ".join(steps), explained["Execution Time"]


def plans(secrets):
    from jobs.statistics import analyze_stale_tables

    print("\n| read | plan before the statistics job | ms | after | ms |\n|---|---|---|---|---|")
    before = {read: plan_summary(secrets[1], *where) for read, where in PLANNED.items()}
    analyzed = analyze_stale_tables()
    for read, where in PLANNED.items():
        after = plan_summary(secrets[1], *where)
        print(f"| {read} | {before[read][0]} | {before[read][1]:.2f} | {after[0]} | {after[1]:.2f} |", flush=True)
    print(f"(the job analyzed: {', '.join(analyzed) or 'nothing'})")


def main():
    args = arguments()
    if args.part == "plans":
        from bench.run import setup_django

        setup_django(args.database_url)
        from bench.seed import bench_secret

        return plans([bench_secret(number) for number in range(args.tokens)])
    from bench.run import seed, setup_django, small_url

    urls = [small_url(args.database_url), args.database_url]
    seed(args, urls[0], args.small_threads, args.small_messages)
    seed(args, urls[1], args.threads, args.messages)
    setup_django(args.database_url)
    from bench.seed import bench_secret, current_size

    secrets = [bench_secret(number) for number in range(args.tokens)]
    sizes = [current_size(urls[0]), current_size()]
    print(f"load average {os.getloadavg()[0]:.1f} at the start (the machine's other jobs included)", flush=True)
    if args.part in ("growth", "all"):
        growth(args, urls, sizes, secrets)
    if args.part in ("floor", "all"):
        against_floor(args, sizes[1], secrets)


if __name__ == "__main__":
    main()
