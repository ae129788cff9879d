"""CPU time the server spends, read from /proc: its gunicorn workers and the PostgreSQL backends serving its
database. On a shared machine wall-clock throughput moves with whatever else runs; CPU seconds per request
moves much less, so the benchmark reports both."""
import os
from pathlib import Path

import psycopg

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid):
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (command) "
    return int(fields[1]), int(fields[11]) + int(fields[12])  # ppid, utime + stime


def children(parent):
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(entry.name)
            if stat and stat[0] == parent:
                found.append(int(entry.name))
    return found


class CpuMeter:
    """`meter.seconds()`: CPU seconds used so far by the server's workers and its database backends."""

    def __init__(self, server_pid, database_url):
        self.server_pid, self.database_url = server_pid, database_url
        self.seen = {}  # pid -> last ticks read, so a backend that exits keeps what it used

    def backends(self):
        with psycopg.connect(self.database_url, autocommit=True) as admin:
            return [row[0] for row in admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")]

    def server_processes(self):
        return children(self.server_pid)

    def seconds(self):
        for pid in self.server_processes() + self.backends():
            stat = _stat(pid)
            if stat is not None:
                self.seen[pid] = stat[1]
        return sum(self.seen.values()) / TICKS
