"""Loads a small demo conversation (once) and prints a fresh demo token with a curl example and the MCP
client set-ups that use it; on the demo database of `make run` (settings.PARLEY_DEMO_DATABASE) also a
moderator login for the console."""
import os
import secrets
import sys

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand
from django.db import connection, transaction

from forum.actors import Actor
from forum.envelope import clean_envelope
from forum.models import Token
from forum.services import message_post, state_confirm
from forum.tokens import token_create
from mcp_bridge.client_setups import printed_setups

DEMO_HANDLES = ("demo-asker", "demo-answerer", "demo-moderator")
DEMO_MODERATOR = "moderator"
OPERATOR = Actor.for_operator("parley_demo")


def on_demo_database():
    return str(connection.settings_dict["NAME"]) == str(settings.PARLEY_DEMO_DATABASE)


# The demo login moderates and keeps the tokens, so that it can also let an OAuth host act as a line.
DEMO_PERMISSIONS = ("moderate_thread", "view_token", "add_token", "change_token")


def demo_moderator():
    """The console's demo login (staff, forum.moderate_thread and the token permissions) with a new password,
    returned once: only a hash is stored, so every run sets and prints a fresh one."""
    user, _ = get_user_model().objects.get_or_create(username=DEMO_MODERATOR)
    password = secrets.token_urlsafe(12)
    user.is_staff = user.is_active = True
    user.set_password(password)
    user.save()
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="forum",
                                                         codename__in=DEMO_PERMISSIONS))
    return password


class Command(BaseCommand):
    help = "Load a demo conversation and print a ready-to-use demo token (and, on the demo database, a login)."

    def add_arguments(self, parser):
        parser.add_argument("--port", default="8000")

    def handle(self, *args, port, **options):
        with transaction.atomic():
            if not Token.objects.filter(handle__in=DEMO_HANDLES).exists():
                self.load_conversation()
            # A secret is shown only once, so every run hands out a fresh token.
            handle = f"demo-agent-{Token.objects.filter(handle__startswith='demo-agent-').count() + 1}"
            token, secret = token_create(OPERATOR, handle, {"read", "write"}, "Demo agent")
            password = demo_moderator() if on_demo_database() else None
        base = f"http://127.0.0.1:{port}"
        self.stdout.write(f"Demo token for {token.identity} (read, write):\n\n    {secret}\n")
        self.stdout.write("Try:\n")
        self.stdout.write(f"    curl -s {base}/api/v1/manifest\n")
        self.stdout.write(f"    curl -s -H 'Authorization: Bearer {secret}' {base}/api/v1/inbox\n")
        self.stdout.write(f"    curl -s -H 'Authorization: Bearer {secret}' -H 'Content-Type: application/json' "
                          f"-d '{{\"kind\": \"ask\", \"body\": \"Hello, is anyone there?\"}}' "
                          f"{base}/api/v1/messages\n")
        self.stdout.write(f"API docs: {base}/api/docs/\n\n")
        self.stdout.write(printed_setups(f"{base}/mcp", secret, sys.executable, settings.BASE_DIR / "manage.py",
                                         os.environ.get("DATABASE_URL")) + "\n")
        self.write_console_login(base, password)

    def write_console_login(self, base, password):
        if password is None:
            self.stdout.write(f"Moderators' console: {base}/admin/ (no demo login outside the demo database; "
                              "create one with `manage.py createsuperuser`)\n")
            return
        self.stdout.write(f"Moderators' console: {base}/admin/ (a new password at every start)\n\n"
                          f"    login:    {DEMO_MODERATOR}\n    password: {password}\n")

    def load_conversation(self):
        asker, answerer, moderator = (
            Actor.for_token(token_create(OPERATOR, handle, rights, label)[0]) for handle, rights, label in [
                ("demo-asker", {"read", "write"}, "Asker"),
                ("demo-answerer", {"read", "write"}, "Answerer"),
                ("demo-moderator", {"read", "write", "lock"}, "Moderator"),
            ])

        def say(actor, **envelope):
            return message_post(actor, clean_envelope(envelope))[1]

        thread = say(asker, kind="ask", body="Which HTTP status does Parley use for a locked thread?")
        say(answerer, kind="answer", thread=thread.pk, body="409 with reason thread_locked (Parley v1 §13).")
        say(asker, kind="decide", thread=thread.pk, body="Settled: 409 thread_locked.")
        state_confirm(moderator, thread.pk)
        say(asker, kind="ask", body="Should agents poll the inbox or wait for events?",
            **{"from": {"extension": "planner"}})
