"""Prints the benchmark's figures as they come, and its verdicts against the targets."""
import math


def verdict(ok):
    return "ok" if ok else "MISSED"


def print_load_header(size):
    print(f"\nthroughput and latency under load at {size.messages} messages ({size.threads} threads)", flush=True)
    print(f"{'operation':<14}{'req/s':>9}{'x floor':>9}{'p50 ms':>9}{'p99 ms':>9}  failures", flush=True)


def print_load_figure(figure, floor):
    print(f"{figure.operation:<14}{figure.throughput:>9.1f}{figure.throughput / floor:>9.2f}{figure.p50_ms:>9.1f}"
          f"{figure.p99_ms:>9.1f}  {figure.failures or ''}", flush=True)


def print_latencies(label, latencies):
    print(f"sequential p50 latency at {label}: " + ", ".join(
        f"{name} {value:.2f} ms" for name, value in latencies.items()), flush=True)


def print_growth(at_small, at_large):
    print("\nlatency growth, 10k -> 1M messages (sequential p50)")
    for name in at_large:
        ratio = at_large[name] / at_small[name]
        print(f"{name:<14}{at_small[name]:>9.2f} ms{at_large[name]:>9.2f} ms  x{ratio:.2f}  {verdict(ratio <= 1.5)}")


def print_queries(queries):
    print("\nqueries per operation (full request stack)")
    for name, number in queries.items():
        print(f"{name:<32}{number:>4}")


def print_targets(figures, queries):
    floor, post, mcp = (figures[name].throughput for name in ("floor", "post", "mcp_post"))
    worst_post_queries = max(number for name, number in queries.items() if name.startswith("post"))
    print("\ntargets")
    print(f"post / floor            {post / floor:.2f}  (>= 0.5)  {verdict(post >= 0.5 * floor)}")
    print(f"queries per post        {worst_post_queries}     (<= 8)   {verdict(worst_post_queries <= 8)}")
    print(f"mcp post / rest post    {mcp / post if post else math.nan:.2f}  (>= 0.9)  {verdict(mcp >= 0.9 * post)}")
