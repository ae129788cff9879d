"""Series read from the database when a scrape asks: the same figure whichever worker or app server answers,
so they are gauges of the whole forum, not of one process (take their max across app servers, not sum)."""
import logging

from django.db import DatabaseError, connection
from prometheus_client.core import GaugeMetricFamily

from forum.selectors import moderation_queue_size

logger = logging.getLogger("parley")

# What PostgreSQL reports as a backend's state (pg_stat_activity.state); nothing else becomes a label value.
BACKEND_STATES = ("active", "idle", "idle in transaction", "idle in transaction (aborted)",
                  "fastpath function call", "disabled")


class ForumCollector:
    def collect(self):
        """With the database away the scrape still answers, the processes' series and `up 0`: that is when
        an operator needs them most."""
        try:
            families = [gauge("parley_moderation_queue", "Threads waiting for a moderator (the console's queue, "
                                                         "§8).", moderation_queue_size())]
            if connection.vendor == "postgresql":
                families.extend(database_connections())
        except DatabaseError:
            logger.warning("metrics: the database did not answer the scrape", exc_info=True)
            yield gauge("parley_database_up", "1 if the scrape could read the database.", 0)
            return
        yield gauge("parley_database_up", "1 if the scrape could read the database.", 1)
        yield from families


def gauge(name, documentation, value):
    family = GaugeMetricFamily(name, documentation)
    family.add_metric([], value)
    return family


def database_connections():
    """The forum database's client connections by state, all app servers together (this scrape's own left
    out), and the server's maximum. Behind PgBouncer these are its connections to PostgreSQL."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT state, count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND state IS NOT NULL "
            "GROUP BY state")
        counts = dict(cursor.fetchall())
        cursor.execute("SELECT current_setting('max_connections')::int")
        maximum = cursor.fetchone()[0]
    in_use = GaugeMetricFamily(
        "parley_database_connections", "Connections to the forum's database by state (in use: active, idle in "
        "transaction).", labels=["state"])
    for state in BACKEND_STATES:
        in_use.add_metric([state], counts.get(state, 0))
    yield in_use
    yield gauge("parley_database_connections_max", "PostgreSQL's max_connections.", maximum)
