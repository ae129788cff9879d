"""Gunicorn settings for Parley (`gunicorn -c gunicorn.conf.py`). Every value can be set from the
environment; docs/deploy.md lists them.

The app is stateless (rate limits, cursors and idempotency records live in the database), so any number of
workers, on any number of machines, serve the same forum."""
import multiprocessing
import os

wsgi_app = os.environ.get("GUNICORN_APP", "parley_site.wsgi:application")
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")
workers = int(os.environ.get("GUNICORN_WORKERS", str(multiprocessing.cpu_count() * 2 + 1)))
# gthread by default: a long-polling `wait` (feed profile, up to 30 s) holds one thread, not a whole
# process. An async worker class (e.g. for an ASGI app in GUNICORN_APP) is one environment variable away.
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# Longer than the longest legitimate request (a 30 s long poll), short enough to reap a stuck worker.
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

# Long-lived sync and threaded workers keep their database connection between requests; Django checks it
# before reuse (CONN_HEALTH_CHECKS), so a restarted database costs one reconnect, not failed requests.
# Async workers serve many requests on one thread and must not share a connection across them.
if worker_class in ("sync", "gthread"):
    os.environ.setdefault("CONN_MAX_AGE", "60")

# The runtime control socket has one default path per user, which several servers on one machine would
# fight over; it is on only where a path is given.
if os.environ.get("GUNICORN_CONTROL_SOCKET"):
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]
else:
    control_socket_disable = True
