"""Helpers of the console tests: log a user in, run a changelist action, read the console's reports."""
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from forum.models import Thread


def grant(user, *codenames):
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="forum", codename__in=codenames))
    return user


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def number(ref):
    return int(ref.removeprefix("th_"))


def thread_of(ref):
    return Thread.objects.get(pk=number(ref))


CHANGELIST = "/admin/forum/thread/"


def run_action(client, action, refs, **form):
    """Submit a changelist action on the given threads and follow to the page that reports it."""
    data = {"action": action, "_selected_action": [number(ref) for ref in refs], **form}
    return client.post(CHANGELIST, data, follow=True)


def apply_mark(client, kind, refs, body):
    """A mark action past its intermediate page: the body typed and applied."""
    return run_action(client, f"mark_{kind}", refs, apply="1", body=body)


def reports(response):
    """The console's messages on the page: (level, text) pairs."""
    return [(message.level_tag, message.message) for message in get_messages(response.wsgi_request)]


def thread_url(ref, view="change"):
    """The admin's thread page, or its `post` and `settle` doors."""
    return reverse(f"admin:forum_thread_{view}", args=[number(ref)])
