"""An open event stream checks its caller again (§16 with §3): rights are checked when a stream opens, but
a stream may stay open for days, and a token revoked (or a line whose rights changed, or a staff user who
may no longer sign in) meanwhile must not go on reading. A revocation announces nothing, so the stream asks
at each heartbeat, and before it delivers what a note woke it for."""
import asyncio

from forum.selectors import actor_key, current_actors


class CallerChecks:
    """Streams that ask in the same turn of the event loop share one check: a note can wake a thousand
    streams at once, and their checks then cost one query, not a thousand. A check is always sent after it
    was asked for, so it sees any revocation committed before the wake."""

    def __init__(self, run_query):
        self._run_query = run_query  # (function, *args) -> awaitable of its result, off the event loop
        self._gathering = None  # (the loop, the keys asked for, the task that will answer them)

    async def current(self, actor):
        """The caller's Actor as it stands now, or None (forum.selectors.current_actors)."""
        loop = asyncio.get_running_loop()
        if self._gathering is None or self._gathering[0] is not loop:
            keys = set()
            self._gathering = (loop, keys, loop.create_task(self._answer(keys)))
        _, keys, answer = self._gathering
        key = actor_key(actor)
        keys.add(key)
        return (await asyncio.shield(answer))[key]  # one stream leaving must not cancel the others' check

    async def _answer(self, keys):
        await asyncio.sleep(0)  # the streams woken in this turn of the loop ask before the query is sent
        if self._gathering is not None and self._gathering[1] is keys:
            self._gathering = None
        return await self._run_query(current_actors, frozenset(keys))
