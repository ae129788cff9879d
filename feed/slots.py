"""Per-token caps on what is held open (§16): `streams_per_token_max` open event streams and
`waits_per_token_max` waiting calls, each counted across all server processes. On PostgreSQL a slot is a
session advisory lock, all of a process's taken on one connection of its own: a process that dies frees
its slots with its connection, and no row is written. SQLite serves one process (development), so there
the count is the process's own."""
import threading
import zlib
from collections import defaultdict

from feed.hub import is_postgresql, raw_connection

# The advisory lock space is shared with anything else on the database: the first key marks ours and the
# kind of slot ("PF" streams, "PG" waits), plus the slot number.
STREAMS = 0x50460000
WAITS = 0x50470000


def owner_key(actor):
    """An int4 naming the line: its token's id, or for a human (no token) a hash of the identity."""
    if actor.token is not None:
        return actor.token.pk % 2**31
    return -1 - (zlib.crc32(actor.identity.encode()) & 0x7FFFFFFF)


class Slots:
    def __init__(self):
        self._lock = threading.Lock()
        self._held = defaultdict(set)  # (kind, owner) -> slots this process holds
        self._connection = None

    def acquire(self, kind, owner, maximum):
        """The number of a free slot of that kind of `owner`, now held by the caller, or None when all
        are taken."""
        with self._lock:
            for slot in range(maximum):
                # A session re-enters its own advisory locks, so this process's slots are skipped here. The
                # set is looked up afresh each time: a lost connection (_reset) forgets every slot.
                if slot not in self._held[kind, owner] and self._try_lock(kind + slot, owner):
                    self._held[kind, owner].add(slot)
                    return slot
            return None

    def held(self, kind, owner):
        """How many slots of that kind this process holds for `owner` now."""
        with self._lock:
            return len(self._held.get((kind, owner), ()))

    def release(self, kind, owner, slot):
        with self._lock:
            self._held[kind, owner].discard(slot)
            if not self._held[kind, owner]:
                del self._held[kind, owner]
            if is_postgresql() and self._connection is not None:
                try:
                    self._connection.execute("SELECT pg_advisory_unlock(%s, %s)", [kind + slot, owner])
                except Exception:  # noqa: BLE001  a lost connection has released every lock anyway
                    self._reset()

    def _try_lock(self, key, owner):
        if not is_postgresql():
            return True
        for attempt in range(2):
            try:
                if self._connection is None or self._connection.closed:
                    self._reset()
                    self._connection = raw_connection()
                return self._connection.execute("SELECT pg_try_advisory_lock(%s, %s)", [key, owner]).fetchone()[0]
            except Exception:  # noqa: BLE001
                self._reset()
                if attempt:
                    raise
        return False

    def close(self):
        """At shutdown: the connection goes, and with it every slot this process holds."""
        with self._lock:
            self._reset()

    def _reset(self):
        """The connection is gone, and with it every lock it held: forget them."""
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        self._held.clear()


SLOTS = Slots()
