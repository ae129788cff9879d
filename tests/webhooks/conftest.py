"""Webhook tests: real HTTP receivers on loopback, the jobs run as the worker runs them, and the webhooks'
own part of "nothing stored"."""
import http.server
import json
import select
import socket
import threading
import time
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


class Trickler:
    """A hostile receiver on 127.0.0.1: it reads each request, then answers one byte every `every` seconds,
    for at most `hold` seconds a connection. Counts the connections it holds at once."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    def __init__(self, every=1.0, hold=30.0):
        self.every, self.hold = every, hold
        self.connections, self.open, self.most_open = 0, 0, 0
        self.lock = threading.Lock()
        self.server = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self.accept, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.getsockname()[1]}/slow"

    def accept(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.trickle, args=(connection,), daemon=True).start()

    def trickle(self, connection):
        with self.lock:
            self.connections, self.open = self.connections + 1, self.open + 1
            self.most_open = max(self.most_open, self.open)
        deadline = time.monotonic() + self.hold
        try:
            connection.recv(65536)
            for byte in self.ANSWER * 1000:
                connection.sendall(bytes([byte]))
                if time.monotonic() > deadline or self.hung_up(connection):
                    break
        except OSError:
            pass  # the client gave up
        finally:
            connection.close()
            with self.lock:
                self.open -= 1

    def hung_up(self, connection):
        """Wait `every` seconds, or less if the client hangs up (True); what else it sends is dropped."""
        end = time.monotonic() + self.every
        while (left := end - time.monotonic()) > 0:
            if select.select([connection], [], [], left)[0] and not connection.recv(65536):
                return True
        return False

    def close(self):
        self.server.close()


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
    """The operator's settings for tests and intranets: http, non-public addresses, and any port."""
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = True
    settings.PARLEY_WEBHOOKS_ALLOW_HTTP = True
    settings.PARLEY_WEBHOOKS_ALLOW_PORTS = range(1, 65536)


@pytest.fixture
def run_jobs(db):
    """run_jobs(at_most=None) -> how many jobs ran: every ready job, and those they enqueue that are ready
    too, in the worker's order and as it runs them (django-tasks-db's Worker.run_task), in this test's
    transaction."""
    worker = Worker(queue_names=["*"], interval=0, batch=True, backend_name="default", startup_delay=False,
                    max_tasks=None, worker_id="tests", excluded_queue_names=[])

    def run(at_most=None):
        count = 0
        while count != at_most and (job := DBTaskResult.objects.ready().first()) is not None:
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
