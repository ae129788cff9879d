"""The cursor positions that writes take in the lists cursors page through (§11): thread, event and claim
ids, and the inbox's global counter of when threads started awaiting. A position orders rows within their
writing transaction; across transactions the lists order by the transaction (forum.commit_order), so
writes take positions without waiting for each other."""
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
