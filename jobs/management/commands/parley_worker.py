"""`manage.py parley_worker`: runs the background jobs (webhook deliveries, periodic jobs) from our own
database. django-tasks-db's worker runs the jobs of every queue; beside it a thread enqueues the periodic jobs
of settings.PARLEY_PERIODIC_TASKS when they are due (jobs.periodic) and gives the queue back the jobs of a
worker that died while running them (jobs.recovery), both safe with several workers running.

SIGTERM or SIGINT: the job running finishes, then the worker exits (a second signal stops it at once). Run
as many as the deliveries need (docs/deploy.md); each takes one job at a time."""
import logging
import threading

from django.db import close_old_connections
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand

from jobs.periodic import enqueue_due
from jobs.recovery import requeue_stalled

logger = logging.getLogger("parley.jobs")


def enqueue_periodically(every, stopped):
    while not stopped.wait(every):
        try:
            requeue_stalled()
            enqueue_due()
        except Exception:  # noqa: BLE001  a database hiccup must not end the schedule; the next turn retries
            logger.exception("enqueuing the periodic jobs failed")
        finally:
            close_old_connections()


class Command(DatabaseWorkerCommand):
    help = "Run the background jobs (webhook deliveries, periodic jobs): every queue, until SIGTERM."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--periodic-every", type=float, default=5.0,
                            help="Seconds between two checks for due periodic jobs (default: %(default)s).")
        # Every queue; no reloader, whose second process would run a second schedule.
        parser.set_defaults(queue_name="*", reload=False)

    def handle(self, *args, periodic_every, **options):
        stopped = threading.Event()
        if not options["batch"]:
            enqueue_due()  # at start, so that a due job does not wait a turn
            schedule = threading.Thread(target=enqueue_periodically, args=(periodic_every, stopped),
                                        name="parley-periodic", daemon=True)
            schedule.start()
        try:
            super().handle(*args, **{**options, "reload": False})
        finally:
            stopped.set()
