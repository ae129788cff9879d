"""`manage.py parley_worker`: the job queue's worker as a real process on the suite's database (a file of its
own on SQLite, which another process cannot share in memory), delivering to a loopback receiver; and the
periodic jobs, enqueued once per slot however many workers run."""
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone
from standardwebhooks.webhooks import Webhook as Verifier

from bench.server import database_url
from jobs.models import PeriodicSlot
from jobs.periodic import enqueue_due
from jobs.recovery import beat, requeue_stalled
from tests.test_readme import SUITE_ENVIRONMENT
from jobs.models import WorkerBeat
from tests.webhooks.conftest import Receiver, Trickler, jobs_of

PROJECT = Path(__file__).resolve().parents[2]
TICK = "tests.webhooks.periodic_tasks.tick"
WRITE = """
from forum import services
from forum.actors import Actor
from forum.envelope import clean_envelope
from forum.tokens import token_create
from webhooks.services import webhook_create

operator = Actor.for_operator("tests")
alice, _ = token_create(operator, "alice", {"read", "write"})
bob, _ = token_create(operator, "bob", {"read", "write"})
webhook, secret = webhook_create(Actor.for_token(alice), URL, ["inbox"])
services.message_post(Actor.for_token(bob), clean_envelope({"kind": "ask", "body": "Anyone there?"}))
print(secret)
"""


# Five deliveries to a receiver that trickles its answers (alice's inbox webhook), then one to another token's
# webhook (carol's, on a thread).
CROWDED = """
from forum import services
from forum.actors import Actor
from forum.envelope import clean_envelope
from forum.tokens import token_create
from webhooks.services import webhook_create

operator = Actor.for_operator("tests")
alice, _ = token_create(operator, "alice", {"read", "write"})
bob, _ = token_create(operator, "bob", {"read", "write"})
carol, _ = token_create(operator, "carol", {"read"})
_, followed, _ = services.message_post(Actor.for_token(bob), clean_envelope({"kind": "ask", "body": "Followed?"}))
webhook_create(Actor.for_token(alice), SLOW, ["inbox"])
webhook_create(Actor.for_token(carol), FAST, [f"th_{followed.pk}"])
for number in range(5):
    services.message_post(Actor.for_token(bob), clean_envelope({"kind": "ask", "body": f"Question {number}?"}))
services.message_post(Actor.for_token(alice), clean_envelope(
    {"kind": "answer", "body": "Yes.", "thread": f"th_{followed.pk}"}))
"""
TICK_STATUS = "from django_tasks_db.models import DBTaskResult; print(*DBTaskResult.objects.filter(" \
              "task_path='tests.webhooks.periodic_tasks.tick').values_list('status', flat=True))"


@pytest.fixture
def worker_database(transactional_db, tmp_path):
    """(the URL of a database another process can use, its environment): the suite's own on PostgreSQL
    (committed data: transactional_db), a migrated file on SQLite."""
    env = {name: value for name, value in os.environ.items() if name not in SUITE_ENVIRONMENT}
    env.update(DJANGO_SETTINGS_MODULE="parley_site.settings_test", PARLEY_WEBHOOKS_ALLOW_PRIVATE="1",
               PARLEY_WEBHOOKS_ALLOW_HTTP="1", PARLEY_WEBHOOKS_ALLOW_PORTS="any", LOG_FORMAT="text")
    if connection.vendor == "postgresql":
        env["DATABASE_URL"] = database_url(connection.settings_dict)
    else:
        env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'worker.sqlite3'}"
        manage(env, "migrate", "--verbosity", "0")
    return env


def manage(env, *arguments, **options):
    return subprocess.run([sys.executable, "manage.py", *arguments], cwd=PROJECT, env=env, check=True,
                          capture_output=True, text=True, timeout=120, **options).stdout


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_the_worker_as_a_real_process_delivers_a_signed_webhook_and_stops_cleanly_on_sigterm(worker_database):
    receiver = Receiver()
    try:
        secret = manage(worker_database, "shell", "-c", WRITE.replace("URL", repr(receiver.url))).split()[-1]
        worker = subprocess.Popen([sys.executable, "manage.py", "parley_worker", "--interval", "0.2",
                                   "--no-startup-delay"], cwd=PROJECT, env=worker_database,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            delivered = wait_for(lambda: receiver.requests, 60)
            worker.send_signal(signal.SIGTERM)
            output, _ = worker.communicate(timeout=30)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        assert delivered, output
        assert worker.returncode == 0, output
        [request] = receiver.requests
        payload = Verifier(secret).verify(request["body"], request["headers"])
        assert payload["type"] == "inbox" and payload["thread"]["title"] == "Anyone there?"
    finally:
        receiver.close()


def test_a_periodic_job_is_enqueued_once_per_slot_however_many_workers_ask(db, settings, time_machine):
    settings.PARLEY_PERIODIC_TASKS = {TICK: 60}
    now = timezone.now()
    time_machine.move_to(now, tick=False)
    assert enqueue_due() == [TICK]
    assert enqueue_due() == []  # a second worker in the same slot
    time_machine.shift(timedelta(seconds=59))
    assert enqueue_due() == []
    time_machine.shift(timedelta(seconds=1))
    assert enqueue_due() == [TICK]
    assert len(jobs_of(TICK)) == 2
    assert PeriodicSlot.objects.get(task=TICK).next_run_at == now + timedelta(seconds=120)


def test_the_worker_runs_the_periodic_jobs_it_enqueued(run_jobs, settings):
    settings.PARLEY_PERIODIC_TASKS = {TICK: 3600}
    enqueue_due()
    assert run_jobs() == 1
    assert [job.return_value for job in jobs_of(TICK)] == ["tick"]


@pytest.fixture
def running(db, settings, time_machine):
    """running(worker_id): a periodic job claimed by `worker_id`, with the clock stopped."""
    def claim(worker_id):
        time_machine.move_to(timezone.now(), tick=False)
        settings.PARLEY_PERIODIC_TASKS = {TICK: 3600}
        enqueue_due()
        [job] = jobs_of(TICK)
        job.claim(worker_id)
    return claim


def test_a_job_left_running_by_a_dead_worker_is_run_again(run_jobs, running, time_machine):
    running("a-worker-that-died")
    assert run_jobs() == 0 and requeue_stalled() == 0
    time_machine.shift(timedelta(seconds=61))  # no worker of that id beats
    assert requeue_stalled() == 1
    assert run_jobs() == 1
    assert [job.return_value for job in jobs_of(TICK)] == ["tick"]


def started_worker(env, *arguments):
    return subprocess.Popen([sys.executable, "manage.py", "parley_worker", "--interval", "0.2", "--no-startup-delay",
                             *arguments], cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def stopped(worker):
    worker.send_signal(signal.SIGTERM)
    try:
        return worker.communicate(timeout=30)[0]
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


@pytest.fixture
def crowded(worker_database):
    """(slow, fast, environment): the worker's database holding five deliveries to a receiver that trickles
    a byte a second (slow), then one to another token's webhook (fast); attempts end after 3 s."""
    slow, fast = Trickler(every=1.0, hold=60), Receiver()
    env = {**worker_database, "PARLEY_WEBHOOKS_ATTEMPT_SECONDS": "3"}
    manage(env, "shell", "-c", CROWDED.replace("SLOW", repr(slow.url)).replace("FAST", repr(fast.url)))
    yield slow, fast, env
    slow.close()
    fast.close()


def test_a_trickling_receiver_holds_one_sender_and_neither_another_tokens_delivery_nor_the_other_jobs(crowded):
    slow, fast, env = crowded
    worker = started_worker(env)
    try:
        assert wait_for(lambda: slow.connections, 60), "the worker never sent"
        held_since = time.monotonic()
        assert wait_for(lambda: fast.requests, 30)
        fast_after = time.monotonic() - held_since
        manage(env, "shell", "-c", "from tests.webhooks.periodic_tasks import tick; tick.enqueue()")
        ticked = wait_for(lambda: manage(env, "shell", "-c", TICK_STATUS).split()[-1:] == ["SUCCESSFUL"], 30)
        assert wait_for(lambda: slow.connections >= 3, 30)  # each attempt cut at 3 s, the next one sent
    finally:
        output = stopped(worker)
    assert fast_after < 3, output  # another sender took it: the trickler holds one
    assert ticked, output  # the default lane ran a job while the trickler was held
    assert slow.most_open == 1, output  # one attempt at a time to one webhook, with four senders


def test_with_one_sender_another_tokens_delivery_waits_one_attempt_at_most(crowded):
    slow, fast, env = crowded
    worker = started_worker(env, "--senders", "1")
    try:
        assert wait_for(lambda: slow.connections, 60), "the worker never sent"
        held_since = time.monotonic()
        assert wait_for(lambda: fast.requests, 30)
        fast_after = time.monotonic() - held_since
    finally:
        output = stopped(worker)
    assert fast_after < 3 + 2, output  # the trickler's attempt (3 s), then the other webhook's turn


def test_a_job_a_live_worker_runs_is_never_taken_from_it(run_jobs, running, time_machine):
    running("a-live-worker")
    for _ in range(120):  # two hours of a job still running, its worker beating
        time_machine.shift(timedelta(minutes=1))
        beat("a-live-worker")
        assert requeue_stalled() == 0
    time_machine.shift(timedelta(seconds=61))  # then it stops beating: gone
    assert requeue_stalled() == 1 and not WorkerBeat.objects.exists()
    assert run_jobs() == 1


def test_a_worker_beats_while_it_runs_and_clears_its_beat_when_it_stops(worker_database):
    worker = started_worker(worker_database, "--periodic-every", "0.5")
    try:
        count = "from jobs.models import WorkerBeat; print(WorkerBeat.objects.count())"
        assert wait_for(lambda: manage(worker_database, "shell", "-c", count).split()[-1:] == ["1"], 60)
    finally:
        output = stopped(worker)
    assert worker.returncode == 0, output
    assert manage(worker_database, "shell", "-c", count).split()[-1:] == ["0"]
