"""What stands around the app servers of a real deployment, started on loopback from the machine's own
packages: HAProxy balancing requests over several gunicorn servers, and PgBouncer pooling their database
connections in transaction mode. Shared by the tests (tests/production/test_cluster.py) and the ceiling
benchmark (bench/ceiling.py). Each is `with ...:` and leaves nothing behind."""
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from bench.server import HttpAgent, free_port

START_TIMEOUT = 30


def postgres_os_user():
    """PostgreSQL refuses to run as root; as root the cluster runs as the `postgres` OS user. Returns
    (command prefix, uid, gid), or None when there is no way to run it as another user."""
    if os.geteuid() != 0:
        return [], os.geteuid(), os.getegid()
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        return None
    if shutil.which("runuser") is None:
        return None
    return ["runuser", "-u", "postgres", "--"], user.pw_uid, user.pw_gid


class Background:
    """A foreground daemon in a session of its own, its configuration and log in a temporary directory."""

    name = ""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix=f"parley-{self.name}-"))
        self.port = free_port()
        self.process = None

    def log_text(self):
        log = self.root / "log"
        return log.read_text(errors="replace") if log.exists() else ""

    def spawn(self, command):
        with open(self.root / "log", "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_until(self, ready):
        """Return self once ready() is true; otherwise stop the daemon and raise, whatever went wrong."""
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    if ready():
                        return self
                except (OSError, psycopg.OperationalError):  # not listening yet
                    pass
                time.sleep(0.1)
            raise RuntimeError(f"{self.name} did not start within {START_TIMEOUT}s:\n{self.log_text()}")
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc):
        if self.process is not None:
            self._signal_session(signal.SIGTERM)  # the session: runuser and the daemon under it
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._signal_session(signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)

    def _signal_session(self, number):
        try:
            os.killpg(self.process.pid, number)
        except ProcessLookupError:
            pass


class HAProxy(Background):
    """`with HAProxy([server, ...]) as balancer:` round-robin per request over the servers (HttpAgent works
    against it as against a server), health-checked on /healthz. Every answer names the server that gave
    it in `X-Served-By` (app0, app1, ...), so a test can tell where each request went."""

    name = "haproxy"

    def __init__(self, servers, binary=None):
        super().__init__()
        self.binary = binary or shutil.which("haproxy") or "/usr/sbin/haproxy"
        backends = "\n".join(f"    server app{n} 127.0.0.1:{server.port} check"
                             for n, server in enumerate(servers))
        # Timeouts above the longest hold (a 30 s wait, the stream's 15 s heartbeat), as docs/deploy.md asks.
        # A probe may queue behind a loaded server's requests for seconds (docs/deploy.md, section 5): with
        # a check timeout shorter than that, a balancer takes every busy server out at once and answers 503.
        (self.root / "haproxy.cfg").write_text(f"""\
global
    maxconn 4000
defaults
    mode http
    timeout connect 5s
    timeout client 65s
    timeout server 65s
    timeout http-keep-alive 65s
    timeout check 10s
    default-server inter 1s fall 3 rise 2
frontend parley
    bind 127.0.0.1:{self.port}
    default_backend app
backend app
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    http-response set-header X-Served-By %[srv_name]
{backends}
""")

    def __enter__(self):
        self.spawn([self.binary, "-db", "-f", str(self.root / "haproxy.cfg")])
        probe = HttpAgent(self, None, timeout=5)

        def answers():
            try:
                return probe.get("/healthz")[0] == 200
            except OSError:
                probe.close()  # a refused connection cannot carry the next try
                raise

        try:
            return self.wait_until(answers)
        finally:
            probe.close()


class PgBouncer(Background):
    """`with PgBouncer(database_url, os_user) as bouncer:` PgBouncer in transaction pooling mode in front of
    the PostgreSQL of `database_url`, any database name passed through; `bouncer.url(database_url)` is the
    same URL through it. It refuses to run as root, hence `os_user` (postgres_os_user())."""

    name = "pgbouncer"

    def __init__(self, database_url, os_user, pool_size=20, binary=None):
        super().__init__()
        self.binary = binary or shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        self.prefix, uid, gid = os_user
        upstream = urlsplit(database_url)
        self.user = user = upstream.username or "postgres"
        (self.root / "users.txt").write_text(f'"{user}" "{upstream.password or ""}"\n')
        (self.root / "pgbouncer.ini").write_text(f"""\
[databases]
* = host={upstream.hostname or "127.0.0.1"} port={upstream.port or 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {self.root / "users.txt"}
admin_users = {user}
pool_mode = transaction
default_pool_size = {pool_size}
max_client_conn = 1000
server_reset_query =
ignore_startup_parameters = extra_float_digits
""")
        for path in (self.root, *self.root.iterdir()):
            os.chown(path, uid, gid)

    def __enter__(self):
        self.spawn([*self.prefix, self.binary, str(self.root / "pgbouncer.ini")])
        return self.wait_until(lambda: bool(self.admin("SHOW VERSION")))

    def url(self, database_url):
        """`database_url` with its host and port replaced by this PgBouncer's."""
        parts = urlsplit(database_url)
        credentials = parts.netloc.rpartition("@")[0]
        return urlunsplit(parts._replace(netloc=f"{credentials}@127.0.0.1:{self.port}" if credentials
                                         else f"127.0.0.1:{self.port}"))

    def admin(self, command):
        """Rows (dicts) of an admin console command such as SHOW CLIENTS."""
        # The console speaks the simple query protocol only, which a client-side cursor uses.
        with psycopg.connect(host="127.0.0.1", port=self.port, user=self.user, dbname="pgbouncer",
                             autocommit=True, cursor_factory=psycopg.ClientCursor) as console:
            cursor = console.execute(command)
            names = [column.name for column in cursor.description or []]
            return [dict(zip(names, row)) for row in cursor.fetchall()] if names else [{}]
