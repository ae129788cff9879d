"""Commit-ordered cursor lists without a global lock (§11, §19).

A row of a list a cursor walks (threads, state events, claims; a thread's place in the inbox) carries the
id of the transaction that wrote it, `xact` (on PostgreSQL `pg_current_xact_id()`, the column's default;
a trigger keeps it, and moves a thread's `awaiting_xact` with its `awaiting_seq`: migration forum 0015), beside its position (its id, or `awaiting_seq`). The list is ordered by
(transaction, position), and a read returns only the rows whose transaction is below its snapshot's
horizon: the oldest transaction of this database still in flight when the read began. Every transaction
below that has ended, and every transaction to come gets a higher id, so a row that appears later always
sorts after every row already read: a cursor past a row never passes a write still in flight, and writes
of different threads need not wait for each other (docs/scaling.md says why this design).

SQLite admits one writer at a time: there every `xact` stays 0, positions commit in order, and nothing is
held back. Rows written before the upgrade keep `xact` 0, and a cursor from then (a bare position) reads
as (0, position), so it continues where it stopped."""
from dataclasses import dataclass

from django.db import connection
from django.db.models import BooleanField, Expression, ExpressionWrapper, F, Q

# The transaction ids of other databases of the same PostgreSQL server share the numbering but write no row
# here: the horizon passes over them. A snapshot's xip lists the transactions in flight when it was taken;
# pg_stat_activity names each one's database (32-bit xid, hence the modulo). A transaction counted as
# ours though it was of another database only delays a row; one of ours ended since the snapshot still
# counts, as the snapshot cannot see its rows.
HORIZON_SQL = """(SELECT COALESCE(
        (SELECT min(x) FROM pg_snapshot_xip(s) AS x WHERE mod(x::text::bigint, 4294967296) NOT IN (
            SELECT backend_xid::text::bigint FROM pg_stat_activity
            WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM current_database())),
        pg_snapshot_xmax(s))::text::bigint
    FROM pg_current_snapshot() AS s)"""
# The reader's own transaction (a test's, or a read after a write in one transaction) sees its own rows.
OWN_SQL = "(SELECT pg_current_xact_id_if_assigned()::text::bigint)"


@dataclass(frozen=True, order=True)
class Position:
    """A place in a commit-ordered list: the writing transaction, then the position it took."""
    xact: int
    seq: int

    @classmethod
    def of(cls, row, xact_field="xact", seq_field="id"):
        return cls(getattr(row, xact_field), getattr(row, seq_field))


START = Position(0, 0)


class RawCondition(Expression):
    """A fixed SQL condition on PostgreSQL, true elsewhere."""

    output_field = BooleanField()
    conditional = True

    def __init__(self, sql):
        super().__init__()
        self.sql = sql

    def as_sql(self, compiler, connection):
        return "1 = 1", []

    def as_postgresql(self, compiler, connection):
        return self.sql, []


class After(Expression):
    """(xact, seq) > position as one row comparison, which PostgreSQL answers from an index on both."""

    output_field = BooleanField()
    conditional = True

    def __init__(self, xact, seq, position):
        super().__init__()
        self.xact, self.seq, self.position = F(xact), F(seq), position

    def get_source_expressions(self):
        return [self.xact, self.seq]

    def set_source_expressions(self, expressions):
        self.xact, self.seq = expressions

    def as_sql(self, compiler, connection):
        xact_sql, xact_params = compiler.compile(self.xact)
        seq_sql, seq_params = compiler.compile(self.seq)
        return (f"({xact_sql} > %s OR ({xact_sql} = %s AND {seq_sql} > %s))",
                [*xact_params, self.position.xact, *xact_params, self.position.xact, *seq_params,
                 self.position.seq])

    def as_postgresql(self, compiler, connection):
        xact_sql, xact_params = compiler.compile(self.xact)
        seq_sql, seq_params = compiler.compile(self.seq)
        return f"({xact_sql}, {seq_sql}) > (%s, %s)", [*xact_params, *seq_params, self.position.xact,
                                                       self.position.seq]


class Page(list):
    """A page's items, and whether rows after them are committed or in flight but held back below the
    horizon: a follower woken by a note for such a row reads again shortly, though no other note comes."""
    held_back = False


def page(queryset, after, limit, xact="xact", seq="id"):
    """The rows of `queryset` after the Position `after`, in commit order, at most `limit`: those a poller
    may see now. One query; it reads one row more than the page to learn whether something is held back."""
    ordered = queryset.filter(After(xact, seq, after)).order_by(xact, seq)
    if connection.vendor != "postgresql":
        return Page(ordered[:limit])
    flag = ExpressionWrapper(_visible(queryset, xact), output_field=BooleanField())
    rows = ordered.annotate(parley_visible=flag)[:limit + 1]
    items = Page()
    for row in rows:
        if not row.parley_visible:
            items.held_back = True
            break
        if len(items) < limit:
            items.append(row)
    return items


def newest(queryset, limit, xact="xact", seq="id"):
    """The last `limit` rows a poller may see now, in list order."""
    if connection.vendor == "postgresql":
        queryset = queryset.filter(_visible(queryset, xact))
    return list(reversed(queryset.order_by(f"-{xact}", f"-{seq}")[:limit]))


def held_back(queryset, xact="xact"):
    """Whether rows of `queryset` are committed or in flight but held back: not yet visible to a poller."""
    return connection.vendor == "postgresql" and queryset.exclude(_visible(queryset, xact)).exists()


def head(queryset, xact="xact", seq="id"):
    """The position of the last row a poller may see now (START without any): a list that starts now
    begins after it, and every row that appears later sorts after it."""
    last = newest(queryset, 1, xact, seq)
    return Position.of(last[0], xact, seq) if last else START


def _visible(queryset, xact):
    """Whether the transaction in column `xact` of the row had ended when the read's snapshot was taken,
    and so did every transaction of this database before it; or is the reader's own."""
    column = f"{connection.ops.quote_name(queryset.model._meta.db_table)}.{connection.ops.quote_name(xact)}"
    return Q(RawCondition(f"({column} < {HORIZON_SQL} OR {column} = {OWN_SQL})"))

