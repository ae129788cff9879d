"""A secret left everywhere a message's text can reach, then redacted (§17): what tests/forum/test_erasure.py
runs in the test database on PostgreSQL, and in a process of its own on an SQLite file (`on_a_file`), so
that the file can be read once every connection to it is closed."""
import shutil

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection

from forum import dispatch, operations
from forum.actors import Actor
from forum.models import Thread
from forum.tokens import token_create


def tokens():
    operator = Actor.for_operator("tests")
    return [Actor.for_token(token_create(operator, handle, rights, "")[0])
            for handle, rights in (("asker", {"read", "write"}), ("prover", {"read", "write"}),
                                   ("checker", {"read", "write"}), ("warden", {"read", "write", "lock"}))]


def write(operation, actor, arguments, key=None):
    status, body = dispatch.call(operation, actor, arguments, key)
    assert status in (200, 201), body
    return body


def leave_the_secret_everywhere(secret, user):
    """The secret in a thread's title (its opening ask, posted with an idempotency key), an answer's body
    and provenance, a claim's statement and proof, an attestation's proof, and a console log entry.
    Returns (the moderator, the ids of the messages that hold it)."""
    asker, prover, checker, warden = tokens()
    opened = write(operations.POST, asker, {"kind": "ask", "body": f"Is {secret} the deploy key?"}, key="ask-1")
    thread = opened["thread"]["id"]
    answer = write(operations.POST, prover, {"kind": "answer", "body": f"Yes, {secret} opens it.", "thread": thread,
                                             "provenance": {"model": f"model-{secret}", "client": "c"}}, key="answer-1")
    proof = [{"kind": "note", "ref": f"seen {secret} in the vault", "note": f"the note of {secret}"}]
    asserted = write(operations.POST, prover, {"kind": "assert", "body": f"The key {secret} is current.",
                                               "thread": thread, "proof": proof})
    attested = write(operations.POST, checker, {"kind": "attest", "body": "Checked it.", "thread": thread,
                                                "claim": asserted["claim"]["id"], "proof": proof}, key="attest-1")
    row = Thread.objects.get(pk=int(thread.removeprefix("th_")))
    LogEntry.objects.log_actions(user.pk, [row], CHANGE, change_message=f"Read the thread: {row.title}",
                                 single_object=True)
    held = [opened, answer, asserted, attested]
    return warden, [body["message"]["id"] for body in held]


def redact_all(warden, message_ids):
    for message_id in message_ids:
        write(operations.REDACT, warden, {"message": message_id, "reason": "A leaked deploy key."})


def on_a_file(secret, before):
    """In a process of its own whose DATABASE_URL names an SQLite file: migrate it, leave the secret, keep a
    copy of the file at `before`, redact."""
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("keeper", is_staff=True)
    warden, message_ids = leave_the_secret_everywhere(secret, user)
    connection.close()
    shutil.copyfile(connection.settings_dict["NAME"], before)
    redact_all(warden, message_ids)
    connection.close()
