"""How far an event stream may go without missing anything (§16 "nothing missed").

On PostgreSQL an event's id is drawn when it is inserted, before its transaction commits, so two writers
to different threads may commit ids 7 and 6 in that order. A stream that passed 7 would never see 6. So a
stream does not pass a missing id until the id appears or SETTLE_SECONDS have gone by since the stream
first saw it missing (an id whose transaction rolled back never appears). A write commits within
milliseconds of drawing its event id, so the wait only delays a stream past a rolled-back id.
SQLite runs one writer at a time: ids commit in order there, and nothing is held back."""
import threading
import time

from forum.models import StateEvent

SETTLE_SECONDS = 2.0


class EventHorizon:
    def __init__(self):
        self._lock = threading.Lock()
        self._missing_since = {}  # first missing id of a gap -> when this process first saw it

    @staticmethod
    def scan(after, size):
        """The ids after `after`, whatever thread they belong to: what a gap is judged on."""
        return list(StateEvent.objects.filter(pk__gt=after).order_by("pk").values_list("pk", flat=True)[:size])

    def bound(self, after, ids, size):
        """For the ids scan(after, size) found: (the last id a stream may pass now, seconds until it
        should look again or None, whether more ids than `size` may be waiting)."""
        bound, now = after, time.monotonic()
        with self._lock:
            for pk in ids:
                if pk != bound + 1:
                    seen = self._missing_since.setdefault(bound + 1, now)
                    if now - seen < SETTLE_SECONDS:
                        return bound, SETTLE_SECONDS - (now - seen), False
                bound = pk
            for first, seen in list(self._missing_since.items()):
                if now - seen > 10 * SETTLE_SECONDS:  # settled long ago, for every stream
                    del self._missing_since[first]
        return bound, None, len(ids) == size


HORIZON = EventHorizon()
