"""Webhook tests: real HTTP receivers on loopback, the jobs run as the worker runs them, and the webhooks'
own part of "nothing stored"."""
import http.server
import json
import threading
from contextlib import contextmanager

import pytest
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from tests.forum.expect import nothing_stored
from webhooks.models import Delivery, Webhook


class Receiver:
    """An HTTP server on 127.0.0.1 in a thread of its own, answering each POST with the next of `statuses`
    (the last one again once they run out), and keeping every request it got."""

    def __init__(self, statuses=(200,), headers=None):
        self.statuses, self.headers, self.requests = list(statuses), headers or {}, []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                receiver.requests.append({"headers": dict(self.headers), "body": body, "path": self.path})
                status = receiver.statuses.pop(0) if len(receiver.statuses) > 1 else receiver.statuses[0]
                self.send_response(status)
                for name, value in receiver.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def payloads(self):
        return [json.loads(request["body"]) for request in self.requests]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(allow_loopback):
    """receiver(statuses=(200,), headers=None) -> a running Receiver, stopped after the test."""
    started = []

    def start(statuses=(200,), headers=None):
        started.append(Receiver(statuses, headers))
        return started[-1]

    yield start
    for running in started:
        running.close()


@pytest.fixture
def allow_loopback(settings):
    """The operator's settings for tests and intranets: http, and non-public addresses."""
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = True
    settings.PARLEY_WEBHOOKS_ALLOW_HTTP = True


@pytest.fixture
def run_jobs(db):
    """run_jobs() -> how many jobs ran: every ready job, and those they enqueue that are ready too, as the
    worker runs them (django-tasks-db's Worker.run_task), in this test's transaction."""
    worker = Worker(queue_names=["*"], interval=0, batch=True, backend_name="default", startup_delay=False,
                    max_tasks=None, worker_id="tests", excluded_queue_names=[])

    def run():
        count = 0
        while (job := DBTaskResult.objects.ready().order_by("enqueued_at").first()) is not None:
            job.claim(worker.worker_id)
            worker.run_task(job)
            job.refresh_from_db()
            assert job.status == "SUCCESSFUL", job.traceback
            count += 1
        return count

    return run


@pytest.fixture
def run_fan_outs(allow_loopback):
    """run_fan_outs(): run the queued fan-out jobs only, so that the deliveries they make stay queued."""
    from webhooks.tasks import fan_out

    def run():
        for job in jobs("fan_out").filter(status="READY"):
            fan_out.call(*job.task_result.args, **job.task_result.kwargs)
            job.delete()

    return run


def jobs(task_name):
    """The jobs of a webhooks task (its function's name), oldest first."""
    return jobs_of(f"webhooks.tasks.{task_name}")


def jobs_of(task_path):
    return DBTaskResult.objects.filter(task_path=task_path).order_by("enqueued_at")


@contextmanager
def nothing_stored_here():
    """nothing_stored() of the forum, and no webhook, delivery or job either."""
    before = (list(Webhook.objects.values()), Delivery.objects.count(), DBTaskResult.objects.count())
    with nothing_stored():
        yield
    assert (list(Webhook.objects.values()), Delivery.objects.count(), DBTaskResult.objects.count()) == before


@pytest.fixture
def make_webhook(agent):
    """make_webhook(token, url, topics) -> the 201 answer's JSON (with the secret)."""

    def make(token, url, topics=("inbox",)):
        response = agent(token).post("/api/v1/webhooks", {"url": url, "topics": list(topics)})
        assert response.status_code == 201, response.content
        return response.json()

    return make
