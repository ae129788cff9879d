"""The planner's statistics kept current (periodic: settings.PARLEY_PERIODIC_TASKS), where autovacuum does
not: with it off, or before its first pass, PostgreSQL plans from no statistics at all, or from those a
migration gathered on empty tables, and then takes an equality on an indexed column (the inbox's
`awaiting_from`, a list's `state`) for a few rows: it reads every matching row and sorts them all instead of
walking the ordered index and stopping after the page (docs/performance.md, "Plans"). Only an ANALYZE
fixes that; no query shape does, because the planner's guess without statistics is what it is.

The rule is autovacuum's own default (analyze a table once its changes since the last analysis exceed 50
rows plus 10 % of its rows), checked with one query on the statistics views, so where autovacuum runs this
finds nothing to do. Every table of the database's current schema is covered: this app names none."""
from django.db import connection
from django_tasks import task

BASE_THRESHOLD = 50  # autovacuum_analyze_threshold's default
SCALE_FACTOR = 0.1  # autovacuum_analyze_scale_factor's default

STALE_TABLES = """
    SELECT quote_ident(s.relname) FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
    WHERE s.schemaname = current_schema()
      AND s.n_mod_since_analyze > %s + %s * greatest(c.reltuples, 0)
    ORDER BY s.relname"""


def stale_tables():
    """The tables of the current schema whose statistics are stale by autovacuum's rule."""
    with connection.cursor() as cursor:
        cursor.execute(STALE_TABLES, [BASE_THRESHOLD, SCALE_FACTOR])
        return [name for (name,) in cursor.fetchall()]


def analyze_stale_tables():
    """ANALYZE each stale table (PostgreSQL only); the tables analyzed."""
    if connection.vendor != "postgresql":
        return []
    tables = stale_tables()
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ANALYZE {table}")
    return tables


@task()
def keep_planner_statistics():
    return analyze_stale_tables()
