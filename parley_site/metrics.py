"""The server's own Prometheus series (prometheus_client), declared once, and what a scrape collects.

Each door counts the operations it runs through `observe`: `operation` is the §12 name (an unknown route is
the one value `unknown`), `door` one of DOORS, `outcome` `ok` or the §13 reason. Every label value comes from
a closed set, so no client can grow the number of series.

Under gunicorn every worker writes its figures to files in PROMETHEUS_MULTIPROC_DIR, a directory made fresh
at each server start (gunicorn.conf.py); a scrape, answered by whichever worker, sums the files of all of
them. Without that variable (one process: `make run`, the tests) the figures live in the process."""
import os
import time

from prometheus_client import (REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics,
                               generate_latest, multiprocess)
from rest_framework import exceptions

from parley_site.exception_handler import as_parley_error
from parley_site.metrics_files import files_locked

disable_created_metrics()  # a `_created` twin of every series doubles what Prometheus stores, for nothing here

DOORS = ("rest", "mcp", "admin", "stream")
UNKNOWN_OPERATION = "unknown"  # every route that names no operation, whatever its path

REQUESTS = Counter(
    "parley_requests", "Operations run, by operation (Parley v1 §12), door and outcome (ok or the §13 reason).",
    ["operation", "door", "outcome"])
# From 5 ms to 10 s: a read takes milliseconds, a write waits for its lock and commit; a held call's time
# waiting is the caller's choice and not measured here (parley_held_waits shows how many wait).
DURATION = Histogram(
    "parley_request_duration_seconds", "Time the server worked on an operation, by operation.", ["operation"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
READS_SERVED = Counter(
    "parley_reads_served", "Reads of read-only operations, by the database copy that served them (default: the "
    "primary; replica0, ... : DATABASE_URL_REPLICAS in order).", ["copy"])
# Live values: a worker that exits takes its share with it (gunicorn.conf.py marks it dead).
HELD_WAITS = Gauge("parley_held_waits", "Calls with wait held open now (profile feed, §16).",
                   multiprocess_mode="livesum")
OPEN_STREAMS = Gauge("parley_open_streams", "Event streams open now (profile feed, §16).",
                     multiprocess_mode="livesum")


def outcome_of(exc):
    """`outcome` for a raised exception: its §13 reason, `internal` for a real fault."""
    if isinstance(exc, exceptions.MethodNotAllowed):
        return "method_not_allowed"
    error = as_parley_error(exc)
    return "internal" if error is None else error.reason


def observe(operation, door, outcome, started=None):
    """One operation answered; `started` (time.perf_counter()) also records how long it took."""
    if door not in DOORS:
        raise ValueError(f"unknown door {door!r}")  # a programming error, never a client's doing
    REQUESTS.labels(operation, door, outcome).inc()
    if started is not None:
        DURATION.labels(operation).observe(time.perf_counter() - started)


def exposition(*scrape_collectors):
    """The text format of every series: the processes' (one or all) and the collectors that read their
    values at scrape time (the database's, the same whichever worker answers)."""
    registry = CollectorRegistry()
    for collector in scrape_collectors:
        registry.register(collector)
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        registry.register(_ProcessSeries())
        return generate_latest(registry)
    multiprocess.MultiProcessCollector(registry, directory)
    with files_locked(directory, exclusive=False):  # not while an exited worker's files are folded
        return generate_latest(registry)


class _ProcessSeries:
    """This process's registry seen as one collector, so a scrape's own collectors join it per request."""

    def collect(self):
        return REGISTRY.collect()
