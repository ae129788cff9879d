"""A throwaway PostgreSQL cluster of one test's own, for faults that must not hit the shared server: initdb
into a temporary directory, trust auth, loopback on a free port, its unix socket in that directory too.
Django reaches it as one more database alias, and a router sends every ORM query of the test there."""
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import dj_database_url
import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.test import override_settings

from bench.server import free_port

ALIAS = "private_cluster"
DATABASE = "parley"
PG_CTL_TIMEOUT = 60


def postgresql_binaries():
    """The directory of initdb and pg_ctl: on PATH, or in Debian's versioned directory that keeps them off it."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).resolve().parent
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda path: int(path.parts[-3]))
    return found[-1].parent if found else None


class PrivateCluster:
    """`with PrivateCluster(binaries, os_user) as cluster:` a running cluster with an empty database
    DATABASE; `stop()` and `start()` it at will. Leaving the block stops it and deletes it, whatever happened."""

    def __init__(self, binaries, os_user):
        self.binaries, (self.prefix, uid, gid) = binaries, os_user
        self.root = Path(tempfile.mkdtemp(prefix="parley-pg-"))
        os.chown(self.root, uid, gid)
        self.data, self.port = self.root / "data", free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def __enter__(self):
        try:
            self._run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")
            with open(self.data / "postgresql.conf", "a") as conf:
                conf.write(f"port = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                           f"unix_socket_directories = '{self.root}'\n")
            self.start()
            with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                                 autocommit=True) as maintenance:
                maintenance.execute(f"CREATE DATABASE {DATABASE}")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "stop", "-D", self.data, "-m", "immediate", "-w", check=False)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def start(self):
        self._run("pg_ctl", "start", "-D", self.data, "-l", self.root / "server.log", "-w")

    def stop(self):
        """A fast shutdown: open transactions are rolled back and every connection is cut."""
        self._run("pg_ctl", "stop", "-D", self.data, "-m", "fast", "-w")

    def _run(self, program, *arguments, check=True):
        command = [*self.prefix, str(self.binaries / program), *map(str, arguments)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=PG_CTL_TIMEOUT)
        if check and result.returncode != 0:
            log = self.root / "server.log"
            raise RuntimeError(f"{program} failed: {result.stderr}{result.stdout}"
                               f"{log.read_text(errors='replace') if log.exists() else ''}")
        return result.stdout


class Standby(PrivateCluster):
    """`with Standby(primary) as standby:` a hot standby of the running PrivateCluster `primary`, streaming
    from it (`pg_basebackup -R`, as docs/deploy.md describes), on a port of its own. `delay(seconds)` holds
    back the replay of each commit that long (`recovery_min_apply_delay`), so it lags on purpose."""

    def __init__(self, primary):
        super().__init__(primary.binaries, (primary.prefix, *_owner(primary.root)))
        self.primary = primary

    def __enter__(self):
        try:
            self._run("pg_basebackup", "-h", "127.0.0.1", "-p", self.primary.port, "-U", "postgres", "-D", self.data,
                      "-R", "-X", "stream", "--checkpoint=fast")
            with open(self.data / "postgresql.conf", "a") as conf:
                conf.write(f"port = {self.port}\nunix_socket_directories = '{self.root}'\nhot_standby = on\n"
                           "hot_standby_feedback = on\nwal_receiver_status_interval = 1\n")
            self.start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def delay(self, seconds):
        with psycopg.connect(self.url, autocommit=True) as standby:
            standby.execute(f"ALTER SYSTEM SET recovery_min_apply_delay = '{int(seconds * 1000)}ms'")
            standby.execute("SELECT pg_reload_conf()")

    def promote(self):
        self._run("pg_ctl", "promote", "-D", self.data, "-w")


def _owner(path):
    status = os.stat(path)
    return status.st_uid, status.st_gid


class OnlyOneDatabase:
    def __init__(self, alias):
        self.alias = alias

    def db_for_read(self, model, **hints):
        return self.alias

    def db_for_write(self, model, **hints):
        return self.alias


@contextmanager
def every_query_on(url):
    """Make `url` the Django database ALIAS and route every ORM query there meanwhile, so that services
    and the invariant checks run on it unchanged."""
    connections.settings[ALIAS] = connections.configure_settings(
        {DEFAULT_DB_ALIAS: dj_database_url.parse(url)})[DEFAULT_DB_ALIAS]
    try:
        with override_settings(DATABASE_ROUTERS=[OnlyOneDatabase(ALIAS)]):
            yield connections[ALIAS]
    finally:
        connections[ALIAS].close()
        del connections[ALIAS]
        del connections.settings[ALIAS]
