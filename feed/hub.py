"""How a waiting call learns that something new may be there (Parley v1 §16).

Every committed write announces itself as a small note (feed.notify). One listener per process hears
the notes of every process and wakes the local waiters whose filter the note may concern; a woken waiter
re-reads through the selectors, which alone decide what it sees. On PostgreSQL notes travel by
LISTEN/NOTIFY, so a waiter costs no query until a note wakes it. SQLite has no such channel: one thread
per process compares three maxima at a modest interval and wakes everyone when they move."""
import json
import logging
import threading
import time

import psycopg
from django.conf import settings
from django.db import connection, connections
from django.db.models import Max

CHANNEL = "parley_feed"
# A note that concerns everyone: sent after (re)connecting, when notes may have been missed, and by the
# SQLite poll, which cannot tell what changed.
EVERYTHING = {"kind": "*"}
POLL_SECONDS = 0.5
RECONNECT_SECONDS = 1.0
IDLE_CHECK_SECONDS = 1.0

logger = logging.getLogger("parley.feed")


def is_postgresql():
    return connection.vendor == "postgresql"


def direct_address(direct):
    """psycopg's connection parameters that DATABASE_URL_DIRECT sets (none when it is unset)."""
    if direct is None:
        return {}
    named = {"dbname": direct["NAME"], "user": direct["USER"], "password": direct["PASSWORD"],
             "host": direct["HOST"], "port": direct["PORT"]}
    return {**{key: value for key, value in named.items() if value}, **direct.get("OPTIONS", {})}


def raw_connection():
    """A psycopg connection of its own (outside Django's per-thread ones) with the site's settings, for
    the process-wide listener and stream counter. Both need a session (LISTEN, session advisory locks), so
    they go to the direct address (DATABASE_URL_DIRECT) where one is set: a pooler in transaction mode
    would lend each statement another server connection. TCP keepalives notice a vanished server without
    a query."""
    params = connections["default"].get_connection_params()
    params.update(direct_address(settings.PARLEY_DATABASE_DIRECT))
    params.setdefault("application_name", "parley-feed")  # how pg_stat_activity and a pooler name it
    return psycopg.connect(**params, autocommit=True, keepalives=1, keepalives_idle=30,
                           keepalives_interval=10, keepalives_count=3)


class Hub:
    def __init__(self):
        self._lock = threading.Lock()
        self._waiters = set()
        self._watcher = None
        self._stopping = False

    def subscribe(self, matches, wake):
        """Call wake() (from any thread) for each note with matches(note) true, until unsubscribed."""
        waiter = (matches, wake)
        with self._lock:
            self._waiters.add(waiter)
            if self._watcher is None and not self._stopping:
                target = listen_postgresql if is_postgresql() else poll_sqlite
                self._watcher = threading.Thread(target=target, args=(self,), name="parley-feed", daemon=True)
                self._watcher.start()
        return waiter

    def subscribe_notes(self, hear):
        """hear(note), from whichever thread hears it, for every note (those concerning everyone too) until
        unsubscribed: for a follower that must know what a note names, not only that it came (an MCP
        listen stream, mcp_bridge.listen). hear must be quick and must not raise."""
        return self.subscribe(hear, lambda: None)

    def unsubscribe(self, waiter):
        with self._lock:
            self._waiters.discard(waiter)

    @property
    def followers(self):
        """How many waits and streams of this process listen for notes now."""
        with self._lock:
            return len(self._waiters)

    @property
    def watching(self):
        return self._watcher is not None

    def retire_if_idle(self):
        """Called by the watcher thread: with no waiter left (or the server shutting down) it stops,
        freeing its connection, and the next subscriber starts a new one (which wakes everyone once, as
        notes may have been missed)."""
        with self._lock:
            if self._waiters and not self._stopping:
                return False
            self._watcher = None
            return True

    def stop(self):
        """At shutdown: the watcher ends within a second, closing its connection."""
        with self._lock:
            self._stopping = True
            watcher = self._watcher
        if watcher is not None:
            watcher.join(IDLE_CHECK_SECONDS + POLL_SECONDS + 1)

    def publish(self, note):
        with self._lock:
            waiters = list(self._waiters)
        for waiter in waiters:
            matches, wake = waiter
            if matches(note) or note["kind"] == "*":
                try:
                    wake()
                except RuntimeError:
                    # Its event loop closed before it unsubscribed (a server stopped mid-stream): it hears
                    # nothing any more, and must not keep the followers after it from being woken.
                    self.unsubscribe(waiter)


def listen_postgresql(hub):
    while True:
        try:
            with raw_connection() as listener:
                listener.execute(f"LISTEN {CHANNEL}")
                hub.publish(EVERYTHING)
                while True:
                    for notify in listener.notifies(timeout=IDLE_CHECK_SECONDS):
                        hub.publish(json.loads(notify.payload))
                    if hub.retire_if_idle():
                        return
        except Exception:  # noqa: BLE001  the listener must outlive any database outage
            logger.warning("feed listener lost its connection; reconnecting", exc_info=True)
            if hub.retire_if_idle():
                return
            time.sleep(RECONNECT_SECONDS)


def poll_sqlite(hub):
    from forum.models import Message, StateEvent, Thread

    last = None
    while not hub.retire_if_idle():
        try:
            # A message too: a note moves neither the state nor the turn, and its listeners must hear it.
            mark = (StateEvent.objects.aggregate(m=Max("id"))["m"],
                    Thread.objects.aggregate(m=Max("awaiting_seq"))["m"], Message.objects.aggregate(m=Max("id"))["m"])
        except Exception:  # noqa: BLE001  a locked database: try again at the next poll
            mark = last
        if mark != last:
            hub.publish(EVERYTHING)  # the first poll too: a write may have slipped in before it
        last = mark
        time.sleep(POLL_SECONDS)
    connection.close()


HUB = Hub()
