"""The cursor positions that writes take in the lists cursors page through (§11): thread, event and claim
ids, and the inbox's global counter of when threads started awaiting. Message ids are no such position (no
list of messages has a cursor), so a plain note that moves no state and no awaiting takes none."""
from django.db import connection
from django.db.models import BigIntegerField, BooleanField, Expression

AWAITING_SEQUENCE = "forum_thread_awaiting_seq"
CURSOR_ORDER_LOCK = 0x7061726C6579  # "parley": one transaction-level advisory lock of this database


def lock_cursor_order():
    """From here to its commit, the calling write is the only one taking cursor positions. A position taken
    earlier then always commits earlier, so a poller's cursor never passes a write still in flight and
    `since` misses nothing (§11). Writes that take positions wait for each other only for this short tail
    of their transactions; the others never take the lock. SQLite admits one writer at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CURSOR_ORDER_LOCK])


class CursorOrderLocked(Expression):
    """lock_cursor_order() as a condition that is always true, for a statement the write sends anyway (the
    one that counts it against its token's rate limit): the lock then costs no round trip of its own. The
    database takes it before it locks the statement's row, as lock_cursor_order() would."""

    output_field = BooleanField()
    conditional = True
    contains_aggregate = False

    def as_sql(self, compiler, connection):
        return "1 = 1", []  # SQLite admits one writer at a time anyway

    def as_postgresql(self, compiler, connection):
        return "(SELECT true FROM pg_advisory_xact_lock(%s))", [CURSOR_ORDER_LOCK]


class NextAwaitingSeq(Expression):
    """Evaluated by the database inside the INSERT or UPDATE that sets it: no extra round trip."""

    output_field = BigIntegerField()
    contains_aggregate = False

    def as_sql(self, compiler, connection):
        # SQLite runs one writer at a time (BEGIN IMMEDIATE), so the maximum plus one is safe there.
        return "(SELECT COALESCE(MAX(awaiting_seq), 0) + 1 FROM forum_thread)", []

    def as_postgresql(self, compiler, connection):
        return f"nextval('{AWAITING_SEQUENCE}')", []
