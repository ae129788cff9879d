"""How far an event stream may go without missing anything (§16 "nothing missed").

On PostgreSQL an event's id is drawn when it is inserted, before its transaction commits, so two writers
to different threads may commit ids 7 and 6 in that order. A stream that passed 7 would never see 6. So a
stream does not pass a missing id until the id appears or SETTLE_SECONDS have gone by since the stream
first saw it missing (an id whose transaction rolled back never appears). A write commits within
milliseconds of drawing its event id, so the wait only delays a stream past a rolled-back id.
SQLite runs one writer at a time: ids commit in order there, and nothing is held back."""
import time

from forum.models import StateEvent

SETTLE_SECONDS = 2.0


class EventHorizon:
    def __init__(self):
        self._missing_since = {}  # first missing id of a gap -> when this stream first saw it

    def bound(self, after, size):
        """(the last id the stream may pass now, seconds until it should look again or None, whether
        more ids than `size` may be waiting)."""
        ids = list(StateEvent.objects.filter(pk__gt=after).order_by("pk").values_list("pk", flat=True)[:size])
        bound, now = after, time.monotonic()
        for pk in ids:
            if pk != bound + 1:
                seen = self._missing_since.setdefault(bound + 1, now)
                if now - seen < SETTLE_SECONDS:
                    self._forget_below(bound)
                    return bound, SETTLE_SECONDS - (now - seen), False
            bound = pk
        self._forget_below(bound)
        return bound, None, len(ids) == size

    def _forget_below(self, bound):
        for first in [first for first in self._missing_since if first <= bound]:
            del self._missing_since[first]
