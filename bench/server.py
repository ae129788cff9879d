"""A real gunicorn on a free loopback port, and a keep-alive HTTP client for it: shared by the benchmark and
by the tests that need a real server (tests/production)."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 30


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url(settings_dict):
    credentials = settings_dict["USER"] + (f":{settings_dict['PASSWORD']}" if settings_dict["PASSWORD"] else "")
    host, port = settings_dict["HOST"] or "127.0.0.1", settings_dict["PORT"] or 5432
    return f"postgres://{credentials}@{host}:{port}/{settings_dict['NAME']}"


class GunicornServer:
    """`with GunicornServer(url, workers=2, SOME_SETTING=...) as server:`; extra keywords become environment
    variables of the server."""

    def __init__(self, database, workers=2, threads=4, settings_module="parley_site.settings_test",
                 **environment):
        # `threads` matters only to a gthread worker class given in `environment`.
        self.port = free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="parley-gunicorn-", suffix=".log", delete=False)
        self.env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings_module,
                    "DATABASE_URL": database, "GUNICORN_BIND": f"127.0.0.1:{self.port}",
                    "GUNICORN_WORKERS": str(workers), "GUNICORN_THREADS": str(threads), "LOG_FORMAT": "json",
                    **{name: str(value) for name, value in environment.items()}}
        self.process = None
        self.final_log = None

    def __enter__(self):
        # A session of its own, so that the master and its workers can all be ended together.
        self.process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"],
                                        cwd=PROJECT_ROOT, env=self.env, stdout=self.log, stderr=self.log,
                                        start_new_session=True)
        probe, deadline = HttpAgent(self, None), time.monotonic() + START_TIMEOUT
        try:
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    if probe.get("/healthz")[0] == 200:
                        return self
                except OSError:
                    probe.close()
                    time.sleep(0.1)
        finally:
            probe.close()
        failure = f"gunicorn did not answer /healthz within {START_TIMEOUT}s:\n{self.log_text()}"
        self.__exit__()
        raise RuntimeError(failure)

    def __exit__(self, *exc):
        self.process.send_signal(signal.SIGINT)  # quick shutdown: tests do not wait for idle keep-alives
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        try:  # whatever is left of the session: a stuck master, or workers it left behind
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.log.close()
        self.final_log = self.log_text()
        os.unlink(self.log.name)

    def log_text(self):
        """What the server logged so far; after it stopped, all it logged, its shutdown included."""
        if self.final_log is not None:
            return self.final_log
        return Path(self.log.name).read_text(errors="replace")

    def log_entries(self):
        """The server's structured log lines (parley_site.requestlog), read while the server runs."""
        return [json.loads(line) for line in self.log_text().splitlines() if line.startswith('{"time"')]


class HttpAgent:
    """One agent's keep-alive connection. Answers (status, parsed JSON or None, headers by any case)."""

    def __init__(self, server, token, timeout=30):
        self.server, self.timeout = server, timeout
        self.secret = getattr(token, "secret", token)
        self.connection = None

    def request(self, method, path, body=None, headers=None):
        sent = dict(headers or {})
        if self.secret:
            sent["Authorization"] = f"Bearer {self.secret}"
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=self.timeout)
            try:
                self.connection.request(method, path, body=body, headers=sent)
                response = self.connection.getresponse()
                raw = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection under us. Sending again is safe for reads
                # and for writes carrying an Idempotency-Key, which is how the load tests write.
                self.close()
                if attempt == 2:
                    raise
                continue
            parsed = json.loads(raw) if raw and response.getheader("Content-Type", "").startswith(
                "application/json") else None
            return response.status, parsed, response.headers  # names match whatever their case

    def get(self, path):
        return self.request("GET", path)

    def post(self, body, path="/api/v1/messages", headers=None):
        return self.request("POST", path, body, headers)

    def mcp(self, tool, arguments, idempotency_key=None):
        """`tools/call` over POST /mcp, answered like the REST door: (status, body, headers), where a refusal's
        status is the one its structuredContent names."""
        params = {"name": tool, "arguments": arguments}
        if idempotency_key is not None:
            params["_meta"] = {"io.parley/idempotency-key": idempotency_key}
        status, answer, headers = self.request(
            "POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        if status != 200 or "result" not in (answer or {}):
            return status, answer, headers
        body = answer["result"]["structuredContent"]
        return (body["error"]["status"] if answer["result"]["isError"] else 200), body, headers

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None
