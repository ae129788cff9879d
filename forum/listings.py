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


def inbox_listing(identity, awaiting, extension, where=None, decorations=()):
    """The caller's inbox; `decorations` (forum.profiles.Decoration) add their keys to each item."""
    def read(actor, after, limit):
        return selectors.inbox(actor, awaiting=awaiting, extension=extension, after=after, limit=limit,
                               where=where)
    needs = (Right.READ, Right.LOCK) if awaiting == AwaitingAct.CONFIRMATION else (Right.READ,)
    read, render = decorated(read, thread_json, decorations)
    return Listing("inbox", read, inbox_position, render, needs, ("inbox", identity, awaiting),
                   ("inbox", identity, awaiting, extension, where, tuple(d.key for d in decorations)))


def decorated(read, render, decorations):
    """`read` and `render` with what `decorations` add to each item: read in the read, where a held or
    shared read runs too (off the event loop, §16), and kept on the model object until it is rendered."""
    if not decorations:
        return read, render

    def decorated_read(actor, after, limit):
        items = read(actor, after, limit)
        decorate(items, decorations)
        return items

    def decorated_render(item):
        return {**render(item), **item.decorations}
    return decorated_read, decorated_render


def decorate(items, decorations):
    for item in items:
        item.decorations = {}
    for decoration in decorations:
        for item, value in zip(items, decoration.values(list(items)), strict=True):
            item.decorations[decoration.key] = value


def inbox_position(thread):
    return Position.of(thread, *selectors.INBOX_ORDER)
