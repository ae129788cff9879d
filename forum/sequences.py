"""The places of writes in the lists that cursors page through (§11): thread, event and claim ids, and the
inbox's global counter of when threads started awaiting. Message ids are no such place (no list of
messages has a cursor), so a plain note that moves no state and no awaiting draws none."""
from django.db import connection
from django.db.models import BigIntegerField, BooleanField, Expression

AWAITING_SEQUENCE = "forum_thread_awaiting_seq"
PLACES_LOCK = 0x7061726C6579  # "parley": one transaction-level advisory lock of this database


def take_places():
    """From here to its commit, the calling write is the only one taking places in the lists. A place taken
    earlier then always commits earlier, so a poller's cursor never passes a write still in flight and
    `since` misses nothing (§11). Writes that draw places wait for each other only for this short tail of
    their transactions; the others never take it. SQLite admits one writer at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PLACES_LOCK])


class PlacesTaken(Expression):
    """take_places() as a condition that is always true, for a statement the write sends anyway (the one
    that counts it against its token's rate limit): the lock then costs no round trip of its own. The
    database takes it before it locks the statement's row, as take_places() would."""

    output_field = BooleanField()
    conditional = True
    contains_aggregate = False

    def as_sql(self, compiler, connection):
        return "1 = 1", []  # SQLite admits one writer at a time anyway

    def as_postgresql(self, compiler, connection):
        return "(SELECT true FROM pg_advisory_xact_lock(%s))", [PLACES_LOCK]


class NextAwaitingSeq(Expression):
    """Evaluated by the database inside the INSERT or UPDATE that sets it: no extra round trip."""

    output_field = BigIntegerField()
    contains_aggregate = False

    def as_sql(self, compiler, connection):
        # SQLite runs one writer at a time (BEGIN IMMEDIATE), so the maximum plus one is safe there.
        return "(SELECT COALESCE(MAX(awaiting_seq), 0) + 1 FROM forum_thread)", []

    def as_postgresql(self, compiler, connection):
        return f"nextval('{AWAITING_SEQUENCE}')", []
