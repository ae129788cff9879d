"""The workers' metrics files: an exited worker's counts are folded into the archive, so a scrape reads one
set of files per live worker, and the totals neither drop nor double."""
import os
import subprocess
import sys

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from parley_site.metrics_files import retire_worker
from tests.metrics.conftest import series

WORKER = """
from prometheus_client import Counter, Gauge, Histogram
requests = Counter("parley_requests", "", ["operation", "door", "outcome"])
duration = Histogram("parley_request_duration_seconds", "", ["operation"], buckets=(0.1, 1))
waits = Gauge("parley_held_waits", "", multiprocess_mode="livesum")
for _ in range({count}):
    requests.labels("post", "rest", "ok").inc()
    duration.labels("post").observe(0.5)
waits.inc()
print(__import__("os").getpid())
"""


def run_worker(directory, count):
    """A process that counts `count` requests and holds one wait, then exits; returns its pid."""
    done = subprocess.run([sys.executable, "-c", WORKER.format(count=count)], capture_output=True, text=True,
                          check=True, env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)})
    return int(done.stdout)


def scraped(directory):
    registry = CollectorRegistry()
    MultiProcessCollector(registry, str(directory))
    return series(generate_latest(registry).decode())


POSTS = ("parley_requests_total", (("door", "rest"), ("operation", "post"), ("outcome", "ok")))
SLOW = ("parley_request_duration_seconds_bucket", (("le", "1.0"), ("operation", "post")))


def test_an_exited_workers_counts_are_folded_and_its_files_removed(tmp_path):
    first, second = run_worker(tmp_path, 3), run_worker(tmp_path, 4)
    before = scraped(tmp_path)
    assert (before[POSTS], before[SLOW], before[("parley_held_waits", ())]) == (7, 7, 2)

    retire_worker(str(tmp_path), first)
    retire_worker(str(tmp_path), second)

    after = scraped(tmp_path)
    seconds = after[("parley_request_duration_seconds_sum", (("operation", "post"),))]
    assert (after[POSTS], after[SLOW], seconds) == (7, 7, 3.5)
    assert ("parley_held_waits", ()) not in after  # a live gauge goes with its process
    assert sorted(name for name in os.listdir(tmp_path) if name.endswith(".db")) == [
        "counter_archive.db", "histogram_archive.db"]


def test_folding_adds_to_what_the_archive_already_holds(tmp_path):
    retire_worker(str(tmp_path), run_worker(tmp_path, 2))
    retire_worker(str(tmp_path), run_worker(tmp_path, 5))
    assert scraped(tmp_path)[POSTS] == 7


def test_retiring_a_worker_that_wrote_nothing_changes_nothing(tmp_path):
    retire_worker(str(tmp_path), 999999)
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".db")]
