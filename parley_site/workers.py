"""The gunicorn worker class of the production command (gunicorn.conf.py): uvicorn-worker's, serving the
ASGI application, with one change. At shutdown uvicorn waits for every open connection to end, and an event
stream never ends by itself, so gunicorn would kill the worker after its graceful_timeout, before the
lifespan's clean-up ran. Here open connections get a third of that time, then they are ended (the streams'
clients reconnect elsewhere) and the worker shuts down cleanly."""
from uvicorn_worker import UvicornWorker as MaintainedUvicornWorker


class UvicornWorker(MaintainedUvicornWorker):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.config.timeout_graceful_shutdown = max(1, self.cfg.graceful_timeout // 3)
