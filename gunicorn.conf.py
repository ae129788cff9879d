"""Gunicorn settings for Parley (`gunicorn -c gunicorn.conf.py`). Every value can be set from the
environment; docs/deploy.md lists them.

Gunicorn manages the processes; each serves the ASGI application on an event loop (uvicorn's worker from
the maintained `uvicorn-worker` package, which parley_site.workers ends open streams with at shutdown), so a waiting call or an open event stream is a coroutine, not a
thread (§16). The app is stateless (rate limits, cursors and idempotency records live in the database), so
any number of workers, on any number of machines, serve the same forum."""
import multiprocessing
import os
import shutil
import tempfile

wsgi_app = os.environ.get("GUNICORN_APP", "parley_site.asgi:application")
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")
# One event loop per core: a process is never idle while it waits, so more processes only add connections.
workers = int(os.environ.get("GUNICORN_WORKERS", str(multiprocessing.cpu_count())))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "parley_site.workers.UvicornWorker")
# Longer than the longest legitimate request (a 30 s wait), short enough to reap a stuck worker. An open
# event stream is no request in this sense: the worker's event loop stays responsive while it is open.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
# Recycle workers now and then so a slow leak cannot grow without bound; jitter avoids a stampede.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "10000"))
max_requests_jitter = max_requests // 10

# Requests are logged by parley_site.requestlog (structured, no secrets); gunicorn logs only its own events.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")

# The proxy addresses whose X-Forwarded-* headers are believed.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# The threads that run requests' sync code live on (parley_site.sync_threads under ASGI, a threaded
# worker's under WSGI), so each keeps its database connection between requests; Django checks one before
# reuse (CONN_HEALTH_CHECKS), so a restarted database costs one reconnect, not failed requests.
os.environ.setdefault("CONN_MAX_AGE", "60")

# The runtime control socket has one default path per user, which several servers on one machine would
# fight over; it is on only where a path is given.
if os.environ.get("GUNICORN_CONTROL_SOCKET"):
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]
else:
    control_socket_disable = True


# Metrics (parley_site.metrics): every worker writes its figures to files in one directory, made fresh at
# each server start so counters begin at zero with it, and removed at exit. A worker that exits (recycled,
# killed) leaves its counts in (totals never go back) and takes its live gauges with it.
def on_starting(server):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="parley-metrics-",
                                                              dir=os.environ.get("PARLEY_METRICS_DIR"))


def child_exit(server, worker):
    from parley_site.metrics_files import retire_worker
    retire_worker(os.environ["PROMETHEUS_MULTIPROC_DIR"], worker.pid)


def on_exit(server):
    shutil.rmtree(os.environ.pop("PROMETHEUS_MULTIPROC_DIR", ""), ignore_errors=True)
