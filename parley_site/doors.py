"""How every door runs a call (Parley v1 §13): the REST views, the MCP tools and resources, the event stream
and the console's actions each declare a Door and run each call through `Door.run`. It counts the call under
its §12 operation, the door and its outcome, `ok` or the §13 reason (parley_site.metrics), with the time the
server worked on it, and gives the door's answer to the call's result, or to its refusal, in that door's
shape. A real fault is counted `internal` and raised on, for the door's own 500.

A call that holds (§16) gives an awaitable instead of its result (forum.dispatch.call); the door then gets
an awaitable of its answer, which it awaits on the server's event loop, and the call counts once it ends,
with how it ended."""
import inspect
import time
from dataclasses import dataclass
from typing import Callable

from parley_site import metrics
from parley_site.exception_handler import as_parley_error


def as_it_is(result):
    return result


@dataclass(frozen=True)
class Door:
    name: str  # the `door` label of its counts, one of metrics.DOORS
    refuse: Callable  # a ParleyError -> the door's answer to it (or the error the door raises for it)
    answer: Callable = as_it_is  # a call's result -> the door's answer to it

    def run(self, operation, work, *args, **kwargs):
        """`work(*args, **kwargs)`, one call of the §12 operation named `operation` at this door: the door's answer to
        it, or to its refusal; for a call that holds, an awaitable of that answer."""
        started = time.perf_counter()
        try:
            result = work(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001  a refusal is answered; a real fault is raised on
            return self._refused(operation, exc, started)
        if inspect.isawaitable(result):
            # Its time is the server's work until it held; the caller's time waiting is not measured.
            metrics.DURATION.labels(operation).observe(time.perf_counter() - started)
            return self._answered_later(operation, result)
        metrics.observe(operation, self.name, "ok", started)
        return self.answer(result)

    async def _answered_later(self, operation, pending):
        try:
            result = await pending
        except Exception as exc:  # noqa: BLE001  as in run
            return self._refused(operation, exc)
        metrics.observe(operation, self.name, "ok")
        return self.answer(result)

    def _refused(self, operation, exc, started=None):
        metrics.observe(operation, self.name, metrics.outcome_of(exc), started)
        error = as_parley_error(exc)
        if error is None:
            raise exc
        return self.refuse(error)
