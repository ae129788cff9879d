"""The gunicorn worker class of the production command (gunicorn.conf.py): uvicorn-worker's, serving the
ASGI application, with two changes to how it stops.

- At shutdown uvicorn waits for every open connection to end, and an event stream never ends by itself,
  so gunicorn would kill the worker after its graceful_timeout, before the lifespan's clean-up ran. Here
  open connections get a third of that time, then they are ended (their clients reconnect elsewhere).
- gunicorn asks for a quick shutdown (its master got SIGINT or SIGQUIT) by sending the workers SIGQUIT,
  which uvicorn-worker hands to gunicorn's handle_exit and no further: the worker went on serving until
  gunicorn killed it. Here SIGQUIT starts uvicorn's own shutdown, as SIGTERM does."""
import os
import signal

from uvicorn_worker import UvicornWorker as MaintainedUvicornWorker


class UvicornWorker(MaintainedUvicornWorker):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.config.timeout_graceful_shutdown = max(1, self.cfg.graceful_timeout // 3)

    def handle_exit(self, sig, frame):
        super().handle_exit(sig, frame)
        if sig == signal.SIGQUIT:
            os.kill(os.getpid(), signal.SIGTERM)  # uvicorn's own handler takes it from here
