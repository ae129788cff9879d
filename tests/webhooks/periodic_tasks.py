"""A periodic job of the tests' own (the worker enqueues what settings.PARLEY_PERIODIC_TASKS names)."""
from django_tasks import task


@task()
def tick():
    return "tick"
