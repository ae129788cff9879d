"""The webhooks' jobs on the task queue (django-tasks, in our own database), run by `manage.py parley_worker`:
one fan-out job per write, queued in the write's transaction (webhooks.announce), and one send job per
attempt of a delivery."""
from django_tasks import task

from webhooks import delivery


@task()
def fan_out(thread_id, message_id=None, event_id=None, awaiting=None):
    """Find the webhooks one committed write concerns and queue a delivery to each."""
    return delivery.fan_out(thread_id, message_id, event_id, awaiting, enqueue=send.enqueue)


@task()
def send(delivery_id):
    """One attempt of a delivery; a failure queues the next, later."""
    return delivery.attempt(delivery_id, enqueue_retry=lambda pk, when: send.using(run_after=when).enqueue(pk))
