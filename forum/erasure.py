"""Redaction's erasure (Parley v1 §17): everything Parley keeps of a message that a moderator redacts, in
the redaction's own transaction, and the job that has PostgreSQL reclaim the dead row versions soon after.

What a message's text reaches: its own row (body, provenance), its thread's title when it opened the thread,
what its profile kept (forum.profiles: `redact`), the stored answers of keyed writes that held any of it
(forum.idempotency), and the console's log (django.contrib.admin's LogEntry). The feed's notes and the job
queue carry ids only. SQLite overwrites what it frees (`secure_delete`, settings.py), so no job is needed
there; PostgreSQL keeps an updated row's old version until VACUUM removes it."""
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import Q
from django_tasks import task

from forum.models import IdempotencyRecord, Message, Thread
from forum.profiles import redact_profile_part
from forum.wire import key

REDACTED_TITLE = "(redacted)"
# Erased texts shorter than this are not looked for in the console log's free text: so short a string
# cannot be told from the log's own words, and entries about the redacted objects are found by their ids.
LOG_TEXT_MIN_CHARS = 4


def erase_message(message, thread):
    """Erase `message`'s text and every copy of it (the caller holds the thread's row lock and stamps the
    message). Returns the tables it changed."""
    texts = [message.body]
    message.body, message.provenance = "", None
    objects, answers = [message], {"message": key("msg", message.pk)}
    tables = {Message._meta.db_table, IdempotencyRecord._meta.db_table, LogEntry._meta.db_table}
    if thread.first_message_id == message.pk:
        texts.append(thread.title)
        thread.title = REDACTED_TITLE
        objects.append(thread)
        # Every answer of a write to the thread showed its title.
        answers["thread"] = key("th", thread.pk)
        tables.add(Thread._meta.db_table)
    erased = redact_profile_part(message)
    texts += erased.texts
    objects += erased.objects
    answers.update(erased.answers)
    tables.update(erased.tables)
    _forget_answers(answers)
    _blank_log_entries(objects, [text for text in texts if len(text) >= LOG_TEXT_MIN_CHARS])
    return sorted(tables)


def _forget_answers(answers):
    """§17: stored idempotency records whose answer held the text are deleted; a retry with such a key is
    then judged afresh."""
    held = Q()
    for answer_key, object_id in answers.items():
        held |= Q(**{f"response__{answer_key}__id": object_id})
    IdempotencyRecord.objects.filter(held).delete()


def _blank_log_entries(objects, texts):
    """§17: the console log's text about the erased objects is written anew from what they read now, and any
    other entry whose text holds an erased string is blanked."""
    for obj in objects:
        LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(obj), object_id=str(obj.pk)).update(
            object_repr=str(obj)[:200], change_message="")
    if texts:
        mentions = Q()
        for text in texts:
            mentions |= Q(object_repr__contains=text) | Q(change_message__contains=text)
        LogEntry.objects.filter(mentions).update(object_repr=REDACTED_TITLE, change_message="")


def reclaim_later(tables):
    """Enqueue, in the caller's transaction, the VACUUM of `tables` (PostgreSQL only)."""
    if connection.vendor == "postgresql":
        vacuum_tables.enqueue(tables)


@task()
def vacuum_tables(tables):
    """VACUUM each table, so the row versions a redaction left dead are removed (with their TOAST and index
    entries) and their space is free for reuse. VACUUM cannot run in a transaction block: a worker runs a
    job in autocommit mode."""
    known = set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        for table in tables:
            if table in known:
                cursor.execute(f"VACUUM {connection.ops.quote_name(table)}")
