"""The workers' metrics files (prometheus_client's multiprocess mode), kept to one set per live worker.

A worker that exits (recycled after GUNICORN_MAX_REQUESTS, or killed) leaves its counter and histogram
files, and a scrape reads every file there is: left alone, a server recycling a worker every few minutes
would read hundreds of them within a day, some milliseconds each. So when a worker exits, gunicorn's master
folds its counts into one archive file per kind and removes its files. It does so under an exclusive lock
that every scrape takes shared, so that no scrape sees a worker's counts twice or not at all.

No Django here: gunicorn's master imports this, and never the application."""
import fcntl
import os
from contextlib import contextmanager

from prometheus_client import multiprocess
from prometheus_client.mmap_dict import MmapedDict

LOCK_FILE = "folding.lock"  # not *.db: the collector reads every *.db file as series
FOLDED_KINDS = ("counter", "histogram")  # summed across processes; live gauges go with their process


@contextmanager
def files_locked(directory, exclusive):
    with open(os.path.join(directory, LOCK_FILE), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield  # closing the file releases the lock


def retire_worker(directory, pid):
    """After worker `pid` has exited: its live gauges dropped, its counts folded into the archive."""
    multiprocess.mark_process_dead(pid, directory)
    with files_locked(directory, exclusive=True):
        for kind in FOLDED_KINDS:
            fold(os.path.join(directory, f"{kind}_{pid}.db"), os.path.join(directory, f"{kind}_archive.db"))


def fold(worker_file, archive_file):
    if not os.path.exists(worker_file):
        return
    archive = MmapedDict(archive_file)
    try:
        # Counters and histogram buckets are stored as plain counts (buckets not yet cumulative): they add.
        for key, value, timestamp, _ in MmapedDict.read_all_values_from_file(worker_file):
            archive.write_value(key, archive.read_value(key)[0] + value, timestamp)
    finally:
        archive.close()
    os.remove(worker_file)
