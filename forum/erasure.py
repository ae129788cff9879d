"""Redaction's erasure (Parley v1 §17): everything Parley keeps of a message that a moderator redacts, in
the redaction's own transaction, and the job that has PostgreSQL reclaim the dead row versions soon after.

What a message's text reaches: its own row (body, provenance), its thread's title when it opened the thread,
what its profile kept (forum.profiles: `redact`), the stored answers of keyed writes that held any of it
(forum.idempotency), and the console's log (django.contrib.admin's LogEntry). The feed's notes and the job
queue carry ids only. SQLite overwrites what it frees (`secure_delete`, settings.py), so no job is needed
there; PostgreSQL keeps an updated row's old version until VACUUM removes it, which it can only once no
snapshot older than the redaction is open: the job waits for that, with backoff (vacuum_tables)."""
import logging
from datetime import timedelta

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import Q
from django.utils import timezone
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
    """Enqueue, in the caller's transaction, the VACUUM of `tables` (PostgreSQL only), naming this
    transaction: the row versions it left dead are what the VACUUM must remove."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()::text")
            erased_by = int(cursor.fetchone()[0]) % 2**32  # the 32-bit xid, as pg_stat_activity shows them
        vacuum_tables.enqueue(tables, erased_by)


# A VACUUM can only remove a row version no snapshot may still see. Each snapshot taken before the erasing
# transaction committed (a `pg_dump` started earlier, any long transaction; docs/operations.md) holds its
# versions: until every such snapshot has ended, the VACUUM is put off, RETRY_FIRST_SECONDS later, then
# twice as long each time, at most RETRY_MOST_SECONDS.
RETRY_FIRST_SECONDS = 60
RETRY_MOST_SECONDS = 3600

logger = logging.getLogger("parley.erasure")


@task()
def vacuum_tables(tables, erased_by=None, attempt=0):
    """VACUUM each table, so the row versions a redaction left dead are removed (with their TOAST and index
    entries) and their space is free for reuse, once nothing can still see them: while a snapshot that may
    (one taken before transaction `erased_by` committed) is open, the VACUUM would leave them, so it is
    queued again with backoff instead, and logged with who holds them. VACUUM cannot run in a transaction
    block: a worker runs a job in autocommit mode."""
    holders = snapshots_older_than(erased_by) if erased_by is not None else []
    if holders:
        delay = min(RETRY_FIRST_SECONDS * 2**attempt, RETRY_MOST_SECONDS)
        logger.warning("the vacuum after a redaction is put off %s s: older snapshots are open, which keep the "
                       "erased text in the table files (%s)", delay, "; ".join(holders))
        vacuum_tables.using(run_after=timezone.now() + timedelta(seconds=delay)).enqueue(
            tables, erased_by, attempt + 1)
        return
    known = set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        for table in tables:
            if table in known:
                cursor.execute(f"VACUUM {connection.ops.quote_name(table)}")


# Whatever keeps the removal horizon of this database at or before a transaction: a session's snapshot
# (`backend_xmin`: an open REPEATABLE READ transaction, a running pg_dump) or its own running transaction
# (`backend_xid`) in this database (or in none: a standby's sender), a replication slot, a standby's
# feedback, a prepared transaction. PostgreSQL computes the horizon a VACUUM removes up to from the same
# (procarray.c, ComputeXidHorizons), and shows these xids to every role: a VACUUM started after none of
# them was at or before the erasing transaction removes every version it left dead. `age()` compares them around the xid wraparound: a larger age is an older transaction. (`%%`:
# a literal `%` beside the query's parameter.)
HOLDERS = """
SELECT what FROM (
    SELECT format('pid %%s (%%s, %%s)', pid, coalesce(nullif(application_name, ''), backend_type),
                  coalesce(state, '?')) AS what, greatest(age(backend_xmin), age(backend_xid)) AS oldest_age
      FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (datname = current_database() OR datname IS NULL)
    UNION ALL SELECT format('replication slot %%s', slot_name), age(xmin)
      FROM pg_replication_slots WHERE xmin IS NOT NULL
    UNION ALL SELECT format('standby %%s', application_name), age(backend_xmin)
      FROM pg_stat_replication WHERE backend_xmin IS NOT NULL
    UNION ALL SELECT format('prepared transaction %%s', gid), age(transaction)
      FROM pg_prepared_xacts WHERE database = current_database()
) holders WHERE oldest_age >= age(%s::text::xid) ORDER BY what
"""


def snapshots_older_than(xid):
    """Who may still see the row versions transaction `xid` left dead: each described, or none."""
    with connection.cursor() as cursor:
        cursor.execute(HOLDERS, [str(xid)])
        return [what for (what,) in cursor.fetchall()]
