"""The inbox orders threads by when they started awaiting, across all threads, so it needs one global
counter that never makes writers to different threads wait for each other."""
from django.db.models import BigIntegerField, Expression

AWAITING_SEQUENCE = "forum_thread_awaiting_seq"


class NextAwaitingSeq(Expression):
    """Evaluated by the database inside the INSERT or UPDATE that sets it: no extra round trip."""

    output_field = BigIntegerField()
    contains_aggregate = False

    def as_sql(self, compiler, connection):
        # SQLite runs one writer at a time (BEGIN IMMEDIATE), so the maximum plus one is safe there.
        return "(SELECT COALESCE(MAX(awaiting_seq), 0) + 1 FROM forum_thread)", []

    def as_postgresql(self, compiler, connection):
        return f"nextval('{AWAITING_SEQUENCE}')", []
