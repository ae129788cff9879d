"""The lists a cursor walks (§11) that can be followed: the state events and a caller's inbox. Each is
declared once, here, and read the same way by its operation (`list_events`, `inbox`), by a held call and by
the event stream (profile feed), so what a follower sees is exactly what the operation would list."""
from dataclasses import dataclass
from typing import Callable

from forum import selectors
from forum.commit_order import Position
from forum.paging import list_page
from forum.models import AwaitingAct, Right
from forum.wire import event_json, thread_json


@dataclass(frozen=True)
class Listing:
    scope: str  # the cursor's scope (forum.cursors)
    # (actor, after, limit) -> items (a forum.commit_order.Page), through the selector that checks the
    # caller's rights
    read: Callable
    position: Callable  # item -> its place in the list (forum.commit_order.Position), which its cursor encodes
    render: Callable  # item -> its wire JSON
    needs: tuple  # the rights the selector requires: a follower re-checks them without reading
    # What a committed write must touch for this list to have grown: ("events", thread id or None) or
    # ("inbox", identity, awaiting act).
    topic: tuple
    # Equal for listings whose reads from one place give every caller who may see the same threads the same
    # answer.
    key: tuple

    def page(self, items, after):
        """The operation's answer: `items`, read after the position `after`, and the cursor past them."""
        return list_page(self.scope, items, after, self.render, self.position)


def events_listing(thread_id, where=None):
    """The state events (of one thread, or all) that `where` (a profile's list arguments, forum.access)
    admits."""
    def read(actor, after, limit):
        return selectors.event_list(actor, thread_id=thread_id, after=after, limit=limit, where=where)
    # Every caller with `read` who may see the same threads (forum.access) sees the same events, so the key
    # names no caller: the shared reads add what it may see (feed.follow.SharedReads).
    return Listing("events", read, Position.of, event_json, (Right.READ,), ("events", thread_id),
                   ("events", thread_id, where))


def inbox_listing(identity, awaiting, extension, where=None):
    def read(actor, after, limit):
        return selectors.inbox(actor, awaiting=awaiting, extension=extension, after=after, limit=limit,
                               where=where)
    needs = (Right.READ, Right.LOCK) if awaiting == AwaitingAct.CONFIRMATION else (Right.READ,)
    return Listing("inbox", read, inbox_position, thread_json, needs,
                   ("inbox", identity, awaiting), ("inbox", identity, awaiting, extension, where))


def inbox_position(thread):
    return Position.of(thread, *selectors.INBOX_ORDER)
