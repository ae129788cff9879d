"""Prints the benchmark's figures as they come, and its verdicts against the targets."""
import statistics


def verdict(ok):
    return "ok" if ok else "MISSED"


def print_growth(small, large, latencies):
    print(f"\nsequential p50 latency, {small.messages} vs {large.messages} messages (requests alternating)")
    for name, (at_small, at_large) in latencies.items():
        ratio = at_large / at_small
        print(f"{name:<14}{at_small:>9.2f} ms{at_large:>9.2f} ms  x{ratio:.2f}  {verdict(ratio <= 1.5)}", flush=True)


def print_load_header(size):
    print(f"\nthroughput and latency under load at {size.messages} messages ({size.threads} threads)", flush=True)
    print(f"{'operation':<14}{'req/s':>9}{'x floor':>9}{'p50 ms':>9}{'p99 ms':>9}  failures", flush=True)


def print_load_figure(figure, floor):
    print(f"{figure.operation:<14}{figure.throughput:>9.1f}{figure.throughput / floor:>9.2f}{figure.p50_ms:>9.1f}"
          f"{figure.p99_ms:>9.1f}  {figure.failures or ''}", flush=True)


def print_queries(queries):
    print("\nqueries per operation (full request stack): SQL statements, round trips with BEGIN/COMMIT")
    for name, (statements, round_trips) in queries.items():
        print(f"{name:<32}{statements:>4}{round_trips:>4}")


def ratio(rounds, numerator, denominator):
    """The median over the rounds of one throughput over another measured in the same round."""
    return statistics.median(r[numerator].throughput / r[denominator].throughput for r in rounds)


def print_targets(rounds, queries):
    post_floor, mcp_post = ratio(rounds, "post", "floor"), ratio(rounds, "mcp_post", "post")
    worst_post_queries = max(statements for name, (statements, _) in queries.items() if name.startswith("post"))
    print(f"\ntargets (ratios: median of {len(rounds)} rounds)")
    print(f"post / floor            {post_floor:.2f}  (>= 0.5)  {verdict(post_floor >= 0.5)}")
    print(f"queries per post        {worst_post_queries}     (<= 8)   {verdict(worst_post_queries <= 8)}")
    print(f"mcp post / rest post    {mcp_post:.2f}  (>= 0.9)  {verdict(mcp_post >= 0.9)}")
