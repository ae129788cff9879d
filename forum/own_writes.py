"""A line reads its own writes (Parley v1 §19), whichever database copy serves its reads: every write of a
line records its transaction id on the line's token row, in the same transaction, and a read may go to a
replica only once that replica has replayed the transaction's commit (parley_site.replicas). The token row
is read from the primary when the line authenticates, so every app server knows the line's last write."""
from django.db.models import BigIntegerField, Expression

from forum.models import Token
from parley_site.replicas import read_on_copy


class CurrentTransactionId(Expression):
    """The writing transaction's id (`pg_current_xact_id()`, with its epoch, so it never wraps), evaluated
    inside the statement that stores it: no round trip of its own."""

    output_field = BigIntegerField()
    contains_aggregate = False

    def as_sql(self, compiler, connection):
        return "NULL", []  # SQLite has no replicas

    def as_postgresql(self, compiler, connection):
        return "pg_current_xact_id()::text::bigint", []


def mark_written(actor):
    """For a write not counted against the rate limit (whose count marks it already): record it as the
    line's last. Takes the token row, last in the lock order."""
    if actor.token is not None:
        Token.objects.filter(pk=actor.token.pk).update(last_write_xid=CurrentTransactionId())


def last_write(actor):
    """The transaction id a replica must have replayed before it serves `actor`'s reads: None when the line
    never wrote (or no actor is known)."""
    return None if actor is None or actor.token is None else actor.token.last_write_xid


def read_for(actor, work, woken_at=None):
    """work(), a read of `actor`'s, on a database copy that shows the line's own writes (and with `woken_at`,
    parley_site.replicas.read_on_copy, what a note announced). A human's or the operator's writes leave no
    mark a replica could be checked against: theirs are read on the primary."""
    if actor is not None and actor.token is None:
        return work()
    return read_on_copy(work, need_xid=last_write(actor), woken_at=woken_at)
