"""`manage.py parley_worker`: runs the background jobs (webhook deliveries, periodic jobs) from our own
database, with django-tasks-db's Worker on lanes, each a thread taking one job at a time:

- one lane for every queue but the send queue: fan-outs, digests, the VACUUM that ends a redaction, purges;
- `--senders` lanes for the webhooks' send jobs (jobs.queues), whose attempts wait on receivers outside.

So a receiver that holds its attempt to the deadline holds one sender, never the other lane, and, since a
webhook has one send job at a time (webhooks.turns), never more than one sender. Beside the lanes a thread
beats for this worker (jobs.recovery), enqueues the periodic jobs of settings.PARLEY_PERIODIC_TASKS when
they are due (jobs.periodic), and gives the queue back the jobs of workers that are gone; all of it safe
with several workers running.

SIGTERM or SIGINT: each lane finishes the job it runs, then the worker exits (a second signal stops it at
once). A lane that fails stops the worker, with status 1, for its supervisor to start it again."""
import argparse
import logging
import signal
import sys
import threading

from django.db import close_old_connections, connection
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand
from django_tasks_db.management.commands.db_worker import Worker

from jobs.periodic import enqueue_due
from jobs.queues import SEND_QUEUE
from jobs.recovery import beat, requeue_stalled, stopped

logger = logging.getLogger("parley.jobs")


def tend(worker_id, every, stopping):
    """Every `every` seconds: beat, give back the jobs of gone workers, enqueue the periodic jobs due."""
    while not stopping.wait(every):
        try:
            beat(worker_id)
            requeue_stalled()
            enqueue_due()
        except Exception:  # noqa: BLE001  a database hiccup must not end the schedule; the next turn retries
            logger.exception("tending the job queue failed")
        finally:
            close_old_connections()


def run_lane(lane, failed):
    try:
        lane.run()
    except BaseException:  # noqa: BLE001  reported to the main thread, which stops the worker
        logger.exception("a lane of the job worker failed")
        failed.set()
    finally:
        connection.close()


def bounded(low, high, kind=float):
    def parse(raw):
        value = kind(raw)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}")
        return value
    return parse


class Command(DatabaseWorkerCommand):
    help = "Run the background jobs (webhook deliveries, periodic jobs) on lanes of threads, until SIGTERM."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--periodic-every", type=bounded(0.1, 30), default=5.0,
                            help="Seconds between two beats and checks for due periodic jobs (default: "
                                 "%(default)s, at most 30: a worker silent for 60 s is taken for gone).")
        parser.add_argument("--senders", type=bounded(1, 64, int), default=4,
                            help="Lanes sending webhook deliveries, each one attempt at a time (default: "
                                 "%(default)s).")
        # The lanes name their queues; no reloader, whose second process would run a second schedule.
        parser.set_defaults(queue_name="*", reload=False)

    def handle(self, *args, periodic_every, senders, **options):
        worker_id = options["worker_id"]
        beat(worker_id)
        try:
            if options["batch"]:  # every job due, in one lane, then exit: for scripts and tests
                return super().handle(*args, **{**options, "reload": False})
            self.configure_logging(options["verbosity"])
            enqueue_due()  # at start, so that a due job does not wait a turn
            self.run_lanes(worker_id, senders, periodic_every, options)
        finally:
            stopped(worker_id)

    def run_lanes(self, worker_id, senders, periodic_every, options):
        def lane(queues, excluded=()):
            return Worker(queue_names=queues, excluded_queue_names=list(excluded), interval=options["interval"],
                          batch=False, backend_name=options["backend_name"], startup_delay=options["startup_delay"],
                          max_tasks=options["max_tasks"], worker_id=worker_id)

        lanes = [lane(["*"], excluded=[SEND_QUEUE]), *(lane([SEND_QUEUE]) for _ in range(senders))]
        stopping, failed = threading.Event(), threading.Event()
        self.on_signals(lanes, stopping)
        threading.Thread(target=tend, args=(worker_id, periodic_every, stopping), name="parley-tend",
                         daemon=True).start()
        threads = [threading.Thread(target=run_lane, args=(one, failed), name=f"parley-lane-{number}", daemon=True)
                   for number, one in enumerate(lanes)]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads) and not failed.is_set():
            failed.wait(0.5)
        if failed.is_set():
            self.stop(lanes, stopping)
            sys.exit(1)
        stopping.set()

    @staticmethod
    def stop(lanes, stopping):
        stopping.set()
        for one in lanes:
            one.running = False

    def on_signals(self, lanes, stopping):
        def shutdown(signum, frame):
            if stopping.is_set():
                logger.warning("%s again: stopping at once", signal.strsignal(signum))
                sys.exit(1)
            logger.warning("%s: each lane finishes its job, then the worker exits (again to stop at once)",
                           signal.strsignal(signum))
            self.stop(lanes, stopping)

        for name in ("SIGINT", "SIGTERM", "SIGQUIT"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), shutdown)
