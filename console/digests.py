"""The moderators' email digests (issue 14): a moderator who opted in (console.models.ModeratorNotice) gets
at most one mail per PARLEY_NOTIFY_MINUTES, listing the threads that entered the moderation queue since
their last one, with links. `parley_worker` runs send_digests every minute (settings.PARLEY_PERIODIC_TASKS);
several workers may run it at once, and a moderator's row is claimed before their mail goes, so each digest
is sent once."""
import logging
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import ngettext
from django_tasks import task

from console.access import can_act_as_human
from console.filters import queue_url
from console.models import ModeratorNotice
from forum.selectors import moderation_queue_entered_after

logger = logging.getLogger("parley")


@task()
def send_digests():
    """Send every digest that is due; returns how many mails went."""
    sent = 0
    for notice in due_notices(timezone.now()):
        try:
            sent += send_digest(notice)
        except Exception:  # noqa: BLE001  one unreachable mailbox must not hold up the other moderators
            logger.exception("digest for %s not sent; tried again at the next run", notice.user.get_username())
    return sent


def due_notices(now):
    """The opted-in moderators with an address whose last digest is older than the window. A moderator is
    who may act as the human in the console (console.access): staff without that permission get none."""
    window_start = now - timedelta(minutes=settings.PARLEY_NOTIFY_MINUTES)
    notices = (ModeratorNotice.objects.select_related("user").filter(opted_in=True).exclude(user__email="")
               .filter(Q(last_sent_at__isnull=True) | Q(last_sent_at__lte=window_start)).order_by("pk"))
    return [notice for notice in notices if can_act_as_human(notice.user)]


def send_digest(notice):
    """One moderator's digest, if anything entered the queue since their last (1 sent, else 0). `notice` is
    the row as this worker read it: the claim succeeds only if no other worker has sent since."""
    now = timezone.now()
    threads = list(moderation_queue_entered_after(notice.last_sent_at))
    if not threads or not claim(notice, now):
        return 0
    try:
        digest_mail(notice.user, threads).send()
    except BaseException:
        # Not sent: give the row back, so the next run tries again.
        ModeratorNotice.objects.filter(pk=notice.pk, last_sent_at=now).update(last_sent_at=notice.last_sent_at)
        raise
    return 1


def claim(notice, now):
    """A conditional UPDATE: of two workers holding the same reading of the row, one changes it. On
    PostgreSQL the second waits for the first to commit and then finds the row changed."""
    return ModeratorNotice.objects.filter(pk=notice.pk, last_sent_at=notice.last_sent_at).update(
        last_sent_at=now) == 1


def absolute(path):
    return f"{settings.PARLEY_PUBLIC_URL}{path}"


def digest_mail(user, threads):
    with translation.override(settings.LANGUAGE_CODE):  # a worker has no request to take a language from
        context = {
            "user": user, "minutes": settings.PARLEY_NOTIFY_MINUTES,
            "queue_url": absolute(queue_url()),
            "settings_url": absolute(reverse("admin:console_moderatornotice_mine")),
            "threads": [{"thread": thread, "url": absolute(reverse("admin:forum_thread_change", args=[thread.pk]))}
                        for thread in threads],
        }
        subject = ngettext("[Parley] %(count)d thread entered the moderation queue",
                           "[Parley] %(count)d threads entered the moderation queue", len(threads)) % {
            "count": len(threads)}
        mail = EmailMultiAlternatives(subject, render_to_string("console/email/digest.txt", context),
                                      to=[user.email])
        mail.attach_alternative(render_to_string("console/email/digest.html", context), "text/html")
    return mail
