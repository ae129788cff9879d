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
    print(f"\nthroughput and latency under load at {size.messages} messages ({size.threads} threads); "
          "x floor: throughput over the floor's in the same round, by wall clock and by server CPU", flush=True)
    print(f"{'operation':<14}{'req/s':>9}{'x floor':>9}{'p50 ms':>9}{'p99 ms':>9}{'cpu ms':>9}{'x floor':>9}"
          "  failures", flush=True)


def print_load_figure(figure, floor):
    print(f"{figure.operation:<14}{figure.throughput:>9.1f}{figure.throughput / floor.throughput:>9.2f}"
          f"{figure.p50_ms:>9.1f}{figure.p99_ms:>9.1f}{figure.cpu_ms_per_request:>9.2f}"
          f"{floor.cpu_ms_per_request / figure.cpu_ms_per_request:>9.2f}  {figure.failures or ''}", flush=True)


def print_queries(queries):
    print("\nqueries per operation (full request stack): SQL statements, round trips with BEGIN/COMMIT")
    for name, (statements, round_trips) in queries.items():
        print(f"{name:<32}{statements:>4}{round_trips:>4}")


def ratio(rounds, numerator, denominator, by_cpu=False):
    """The median over the rounds of one operation's throughput over another's measured in the same round;
    by_cpu: the throughput the server's CPU time per request predicts instead of the wall clock's."""
    if by_cpu:
        return statistics.median(r[denominator].cpu_ms_per_request / r[numerator].cpu_ms_per_request
                                 for r in rounds)
    return statistics.median(r[numerator].throughput / r[denominator].throughput for r in rounds)


def print_targets(rounds, queries=None):
    print(f"\ntargets (ratios: median of {len(rounds)} rounds; wall clock, then server CPU)")
    for label, numerator, denominator, floor in (("post / floor", "post", "floor", 0.5),
                                                 ("mcp post / rest post", "mcp_post", "post", 0.9)):
        wall, cpu = ratio(rounds, numerator, denominator), ratio(rounds, numerator, denominator, by_cpu=True)
        print(f"{label:<22}{wall:>6.2f} {verdict(wall >= floor):<7}{cpu:>6.2f} {verdict(cpu >= floor):<7}"
              f"(>= {floor})")
    if queries is not None:
        worst = max(statements for name, (statements, _) in queries.items() if name.startswith("post"))
        print(f"{'queries per post':<22}{worst:>6}  {verdict(worst <= 8)}  (<= 8)")
