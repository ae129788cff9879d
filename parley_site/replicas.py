"""Reads from streaming replicas (Parley v1 §19): the hot standbys of `DATABASE_URL_REPLICAS`, each a
Django database alias (`replica0`, `replica1`, ...) that only reads of read-only operations reach.

Nothing is routed to a replica unless a read asks for one (`read_on_copy`): every other query, a write,
anything inside a write's transaction, authentication, goes to the primary, as without replicas. A read
goes to a replica only when that replica is known to show what the read must see:

- **its line's own writes**: a write records its transaction id on its line's token row (`last_write_xid`,
  in the statement that counts it against the rate limit, so at no extra cost), which authentication reads
  from the primary; a replica serves the line once its snapshot's xmin has passed that id, that is, once the
  standby has replayed the write's commit (every id below a snapshot's xmin has ended);
- **what woke a follower** (§16): the note came from the primary after the write's commit, so a replica
  serves the woken read once it has replayed the primary's WAL as it stood when the note arrived.

A monitor thread per process asks the primary for its WAL position and each replica for its replay position
and snapshot every POLL_SECONDS: a replica that lags more than PARLEY_REPLICA_MAX_LAG_MS, is down, or is no
standby any more (promoted) is passed over for the primary until a later poll finds it caught up. A read that
fails on a replica for any reason but its statement timeout passes that replica over at once and runs again
on the primary. `/healthz` and `/metrics` show each replica's state as this process sees it."""
import asyncio
import contextvars
import itertools
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass

import psycopg
from prometheus_client.core import GaugeMetricFamily
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections

from parley_site import metrics
from parley_site.statement_timeout import is_timeout

PRIMARY = "default"
PREFIX = "replica"
POLL_SECONDS = 0.2
CONNECT_SECONDS = 1  # a replica whose host vanished is passed over within about a second
SAMPLES_KEPT = 600  # two minutes of the primary's positions at POLL_SECONDS: lag is measured against them

logger = logging.getLogger("parley.replicas")

# The copy this thread's (or task's) ORM reads go to; None: the primary.
READ_FROM = contextvars.ContextVar("parley_read_from", default=None)

def replica_aliases():
    return [alias for alias in settings.DATABASES if alias.startswith(PREFIX)]


class ReplicaRouter:
    """Reads to the copy `read_on_copy` chose, everything else to the primary. An object read on a replica
    keeps no claim on it: its writes, and its relations read later, go where this router says."""

    def db_for_read(self, model, **hints):
        return READ_FROM.get() or PRIMARY

    def db_for_write(self, model, **hints):
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints):
        return True

    def allow_migrate(self, db, app_label, **hints):
        return False if db.startswith(PREFIX) else None  # a standby is migrated by replaying its primary


@dataclass
class ReplicaState:
    alias: str
    up: bool = False
    standby: bool = False
    lag_seconds: float | None = None
    visible_below: int | None = None  # the xmin of its latest snapshot: every transaction below it has ended
    caught_up_at: float = float("-inf")  # time.monotonic() of the newest primary position it has replayed
    covers_until: float = float("-inf")  # ... of the newest one past which every commit then made is replayed
    passed_over_until: float = float("-inf")  # after a failed read: not before the next poll

    def usable(self, max_lag):
        return (self.up and self.standby and self.lag_seconds is not None and self.lag_seconds <= max_lag
                and time.monotonic() >= self.passed_over_until)

    @property
    def name(self):
        """ok, lagging, down, or promoted (no standby any more), for /healthz and the logs."""
        if not self.up:
            return "down"
        if not self.standby:
            return "promoted"
        lagging = self.lag_seconds is None or self.lag_seconds > settings.PARLEY_REPLICA_MAX_LAG_MS / 1000
        return "lagging" if lagging or time.monotonic() < self.passed_over_until else "ok"


def raw_connection(alias):
    """A psycopg connection of the monitor's own to `alias`, with a short connect timeout; its queries carry
    their own statement timeout (`ask`), as a pooler in transaction mode (PgBouncer) passes no session
    setting on."""
    params = connections[alias].get_connection_params()
    params.update(connect_timeout=CONNECT_SECONDS, application_name="parley-replicas",
                  cursor_factory=psycopg.ClientCursor)
    return psycopg.connect(**params, autocommit=True)


class Monitor:
    """Each replica's state as this process sees it, kept current by one thread started at first use."""

    def __init__(self):
        self._lock = threading.Lock()
        self._thread = None
        self._links = {}  # alias -> psycopg connection of the monitor's own
        # (time.monotonic(), the primary's WAL written up to, and inserted up to, then)
        self.samples: deque[tuple[float, int, int]] = deque(maxlen=SAMPLES_KEPT)
        self.states: dict[str, ReplicaState] = {}
        self._turn = itertools.count()

    def start(self):
        with self._lock:
            if self._thread is None and replica_aliases():
                self.states = {alias: ReplicaState(alias) for alias in replica_aliases()}
                self.poll()  # the first answer is not left to chance: reads may come at once
                self._thread = threading.Thread(target=self._run, name="parley-replicas", daemon=True)
                self._thread.start()
        return self

    def _run(self):
        while True:
            time.sleep(POLL_SECONDS)
            try:
                self.poll()
            except Exception:  # noqa: BLE001  the monitor must outlive any fault
                logger.warning("replica monitor poll failed", exc_info=True)

    def _ask(self, alias, sql):
        try:
            link = self._links.get(alias)
            if link is None or link.closed:
                link = self._links[alias] = raw_connection(alias)
            cursor = link.execute(f"SET LOCAL statement_timeout = {CONNECT_SECONDS * 1000}; {sql}")
            cursor.nextset()
            return cursor.fetchone()
        except psycopg.Error:
            link = self._links.pop(alias, None)
            if link is not None:
                link.close()
            return None

    def poll(self):
        now = time.monotonic()
        # Written: where the replica stands when caught up. Inserted: past every commit made so far, even an
        # asynchronous one not yet written, which a note may already have announced.
        primary = self._ask(PRIMARY, "SELECT pg_current_wal_lsn() - '0/0', pg_current_wal_insert_lsn() - '0/0'")
        if primary is not None:
            self.samples.append((now, int(primary[0]), int(primary[1])))
        for alias, state in list(self.states.items()):
            answer = self._ask(alias, "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() - '0/0', "
                                      "pg_snapshot_xmin(pg_current_snapshot())::text::bigint")
            self._update(state, answer, time.monotonic())

    def _update(self, state, answer, now):
        was = state.name
        state.up = answer is not None
        if state.up:
            state.standby, replayed, state.visible_below = answer[0], answer[1], answer[2]
            replayed = -1 if replayed is None else int(replayed)
            for at, written, inserted in self.samples:
                if written <= replayed:
                    state.caught_up_at = max(state.caught_up_at, at)
                if inserted <= replayed:
                    state.covers_until = max(state.covers_until, at)
            if state.caught_up_at > float("-inf"):
                state.lag_seconds = now - state.caught_up_at
            else:  # behind every position remembered, or nothing known of the primary yet
                state.lag_seconds = now - self.samples[0][0] if self.samples else None
        if state.name != was:
            logger.info("replica %s is %s (was %s)", state.alias, state.name, was)

    def choose(self, need_xid=None, woken_at=None):
        """A replica that shows what the read must see (its line's write `need_xid`, the note that arrived at
        `woken_at`), or the primary."""
        max_lag = settings.PARLEY_REPLICA_MAX_LAG_MS / 1000
        if self._thread is None:
            self.start()
        fit = [state.alias for state in self.states.values()
               if state.usable(max_lag)
               and (need_xid is None or (state.visible_below is not None and need_xid < state.visible_below))
               and (woken_at is None or state.covers_until >= woken_at)]
        return fit[next(self._turn) % len(fit)] if fit else PRIMARY

    def all_serving_show(self, moment):
        """Whether every replica that serves reads now has replayed what the primary had at `moment`."""
        max_lag = settings.PARLEY_REPLICA_MAX_LAG_MS / 1000
        return all(state.covers_until >= moment for state in self.states.values() if state.usable(max_lag))

    def pass_over(self, alias):
        """After a failed read there: the primary serves until the next poll finds the replica well."""
        self.states[alias].passed_over_until = time.monotonic() + POLL_SECONDS * 2

    def report(self):
        """{alias: {"state": ..., "lag_seconds": ...}} for /healthz."""
        return {alias: {"state": state.name, "lag_seconds": None if state.lag_seconds is None
                        else round(state.lag_seconds, 3)} for alias, state in self.start().states.items()}


MONITOR = Monitor()


class ReplicaCollector:
    """Each replica's state as the scraped process sees it (every process polls on its own, so they agree
    within a poll or two): whether it serves reads now, and its lag behind the primary."""

    def collect(self):
        if not replica_aliases():
            return
        serving = GaugeMetricFamily("parley_replica_serving", "1 if the replica serves reads now, 0 if it is "
                                    "passed over for the primary (lagging, down, promoted).", labels=["replica"])
        lag = GaugeMetricFamily("parley_replica_lag_seconds", "How far the replica's replay is behind the "
                                "primary's WAL (NaN: unknown).", labels=["replica"])
        max_lag = settings.PARLEY_REPLICA_MAX_LAG_MS / 1000
        for alias, state in MONITOR.start().states.items():
            serving.add_metric([alias], 1 if state.usable(max_lag) else 0)
            lag.add_metric([alias], float("nan") if state.lag_seconds is None else state.lag_seconds)
        yield serving
        yield lag


async def replicas_show(moment):
    """Return once every replica that serves reads shows every write committed before `moment`
    (time.monotonic()), or has been passed over: for a note told to a client, whose next read may go to any
    app server and replica (an MCP listen stream). At most the lag bound and two polls later."""
    if not replica_aliases():
        return
    MONITOR.start()
    deadline = moment + settings.PARLEY_REPLICA_MAX_LAG_MS / 1000 + 2 * POLL_SECONDS
    while not MONITOR.all_serving_show(moment) and time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS / 4)


def read_on_copy(work, need_xid=None, woken_at=None):
    """work(), its ORM reads on a replica that may serve them (Monitor.choose), else on the primary; a read
    a replica fails runs again on the primary. Inside a transaction on the primary, on the primary."""
    if not replica_aliases() or connections[PRIMARY].in_atomic_block:
        return work()
    alias = MONITOR.choose(need_xid, woken_at)
    try:
        return _on(alias, work)
    except (OperationalError, InterfaceError) as exc:
        if alias == PRIMARY or is_timeout(exc):
            raise
        logger.warning("a read failed on replica %s, passed over for the primary: %s", alias, exc)
        MONITOR.pass_over(alias)
        connections[alias].close()
        return _on(PRIMARY, work)


def _on(alias, work):
    token = READ_FROM.set(alias)
    try:
        result = work()
    finally:
        READ_FROM.reset(token)
    metrics.READS_SERVED.labels(alias).inc()
    return result
