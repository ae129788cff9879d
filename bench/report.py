"""Prints the benchmark's figures and its verdicts against the targets."""
import math


def verdict(ok):
    return "ok" if ok else "MISSED"


def print_report(small, large, at_small, at_large, figures, queries):
    floor = figures["floor"].throughput
    print(f"\nthroughput and latency at {large.messages} messages ({large.threads} threads)")
    print(f"{'operation':<14}{'req/s':>9}{'x floor':>9}{'p50 ms':>9}{'p99 ms':>9}  failures")
    for name, figure in figures.items():
        print(f"{name:<14}{figure.throughput:>9.1f}{figure.throughput / floor:>9.2f}{figure.p50_ms:>9.1f}"
              f"{figure.p99_ms:>9.1f}  {figure.failures or ''}")
    print(f"\nsequential p50 latency, {small.messages} vs {large.messages} messages")
    for name in at_small:
        ratio = at_large[name] / at_small[name]
        print(f"{name:<14}{at_small[name]:>9.2f} ms{at_large[name]:>9.2f} ms  x{ratio:.2f}  {verdict(ratio <= 1.5)}")
    print("\nqueries per operation (full request stack)")
    for name, number in queries.items():
        print(f"{name:<32}{number:>4}")
    post, mcp = figures["post"].throughput, figures["mcp_post"].throughput
    worst_post_queries = max(number for name, number in queries.items() if name.startswith("post"))
    print("\ntargets")
    print(f"post / floor            {post / floor:.2f}  (>= 0.5)  {verdict(post >= 0.5 * floor)}")
    print(f"queries per post        {worst_post_queries}     (<= 8)   {verdict(worst_post_queries <= 8)}")
    print(f"mcp post / rest post    {mcp / post if post else math.nan:.2f}  (>= 0.9)  {verdict(mcp >= 0.9 * post)}")
