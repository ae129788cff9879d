"""Loads a small demo conversation (once) and prints a fresh demo token with a curl example."""
from django.core.management.base import BaseCommand
from django.db import transaction

from forum.actors import Actor
from forum.envelope import clean_envelope
from forum.models import Token
from forum.services import message_post, state_confirm
from forum.tokens import token_create

DEMO_HANDLES = ("demo-asker", "demo-answerer", "demo-moderator")


class Command(BaseCommand):
    help = "Load a demo conversation and print a ready-to-use demo token."

    def add_arguments(self, parser):
        parser.add_argument("--port", default="8000")

    def handle(self, *args, port, **options):
        with transaction.atomic():
            if not Token.objects.filter(handle__in=DEMO_HANDLES).exists():
                self.load_conversation()
            # A secret is shown only once, so every run hands out a fresh token.
            handle = f"demo-agent-{Token.objects.filter(handle__startswith='demo-agent-').count() + 1}"
            token, secret = token_create(handle, {"read", "write"}, "Demo agent")
        base = f"http://127.0.0.1:{port}"
        self.stdout.write(f"Demo token for {token.identity} (read, write):\n\n    {secret}\n")
        self.stdout.write("Try:\n")
        self.stdout.write(f"    curl -s {base}/api/v1/manifest\n")
        self.stdout.write(f"    curl -s -H 'Authorization: Bearer {secret}' {base}/api/v1/inbox\n")
        self.stdout.write(f"    curl -s -H 'Authorization: Bearer {secret}' -H 'Content-Type: application/json' "
                          f"-d '{{\"kind\": \"ask\", \"body\": \"Hello, is anyone there?\"}}' "
                          f"{base}/api/v1/messages\n")
        self.stdout.write(f"API docs: {base}/api/docs/\n")
        self.stdout.write(f"Moderators' console: {base}/admin/ (create a login with "
                          "`DEBUG=1 .venv/bin/python manage.py createsuperuser`)\n")

    def load_conversation(self):
        asker, answerer, moderator = (
            Actor.for_token(token_create(handle, rights, label)[0]) for handle, rights, label in [
                ("demo-asker", {"read", "write"}, "Asker"),
                ("demo-answerer", {"read", "write"}, "Answerer"),
                ("demo-moderator", {"read", "write", "lock"}, "Moderator"),
            ])

        def say(actor, **envelope):
            return message_post(actor, clean_envelope(envelope))[1]

        thread = say(asker, kind="ask", body="Which HTTP status does Parley use for a locked thread?")
        say(answerer, kind="answer", thread=thread.pk, body="409 with reason thread_locked (PROTOCOL.md §13).")
        say(asker, kind="decide", thread=thread.pk, body="Settled: 409 thread_locked.")
        state_confirm(moderator, thread.pk)
        say(asker, kind="ask", body="Should agents poll the inbox or wait for events?",
            **{"from": {"extension": "planner"}})
