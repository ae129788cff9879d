"""Who may see what, and the one access check (Parley v1 §20 "Who sees what").

"May see" is one predicate on threads, written once here as a queryset condition (`visible_threads_q`):
the AND of what every installed profile's `sight` says of the actor (forum.profiles), nothing without one.
Every read of threads, messages, state events and claims is filtered by it inside its query
(`visible_threads`, `visible_messages`, `visible_events`, `visible_q` for another model's relation to a
thread), never by looking at fetched rows, so pages, counts, `q` search and shared reads cannot leak.
tests/test_access.py proves that every other module reaches those tables only through here.

`access_thread`, `access_message` and `access_event` mean one thing: check the right, check that the actor
may see the thread, fetch (and lock). What the actor may not see is `not_found`, as if it did not exist."""
from functools import reduce
from operator import and_, or_

from django.db.models import BooleanField, Case, Exists, Max, OuterRef, Q, Value, When

from forum.models import Message, StateEvent, Thread
from forum.policies import has_right
from forum.profiles import PROFILES
from forum.rows import one_row
from parley_site.errors import NotFound, TokenRightMissing


def require_right(actor, right):
    if not has_right(actor, right):
        raise TokenRightMissing(right)


def visible_threads_q(actor):
    """The condition the threads `actor` may see satisfy, as a Q on forum.Thread; Q() (everything) when no
    profile restricts sight."""
    sight = Q()
    for profile in PROFILES.values():
        narrowed = profile.sight(actor) if profile.sight is not None else None
        if narrowed is not None:
            sight &= narrowed
    return sight


class RowExists(Exists):
    """EXISTS that PostgreSQL checks row by row as a scan reaches each row: `OFFSET 0` keeps the planner from
    pulling the subquery up into a join (it pulls up only a subquery without one)."""

    template = "EXISTS(%(subquery)s OFFSET 0)"


def visible_q(actor, prefix=""):
    """The same predicate for a model that reaches its thread through `prefix` ("thread__" for messages,
    events and claims): its thread is visible, as a subquery, so the predicate's own lookups stay relative
    to forum.Thread.

    The subquery is checked per row (RowExists), never joined: a list in its own order (events, claims:
    forum.commit_order) then walks its ordered index, probes each row's thread by its key, and stops after
    the page. As a semi-join PostgreSQL may instead hash every visible thread, join every row and sort them
    all, and it chose that whatever the statistics said (tests/forum/test_plans.py)."""
    sight = visible_threads_q(actor)
    if not prefix or not sight:
        return sight
    return Q(RowExists(Thread.objects.filter(sight, pk=OuterRef(prefix.removesuffix("__")))))


def visible_threads(actor):
    return Thread.objects.filter(visible_threads_q(actor))


def visible_messages(actor):
    return Message.objects.filter(visible_q(actor, "thread__"))


def visible_events(actor):
    return StateEvent.objects.filter(visible_q(actor, "thread__"))


def messages_of(thread):
    """The messages of `thread`, a thread that access_thread let the caller see. Sight is of whole threads
    (§20), so that one check covers each of them: none is checked again row by row."""
    return Message.objects.filter(thread=thread)


def events_of(thread):
    """The state events of `thread`, a thread that access_thread let the caller see (as messages_of)."""
    return StateEvent.objects.filter(thread=thread)


def visible_thread_ids(actor, thread_ids, where=None):
    """Those of `thread_ids` that `actor` may see (and that `where`, a Q on threads, admits): for a follower
    told of threads by notes (an MCP listen stream) and a webhook's fan-out, judged in SQL for the
    recipient. No query while nothing restricts sight or narrows them."""
    sight = visible_threads_q(actor)
    if not sight and where is None:
        return set(thread_ids)
    threads = Thread.objects.filter(sight, pk__in=thread_ids)
    return set((threads if where is None else threads.filter(where)).values_list("pk", flat=True))


def access_thread(actor, thread_id, *, right, lock=False, powers=False):
    """The thread, if `actor` holds `right` and may see it: else token_right_missing, or not_found. With
    lock=True the row stays locked until the transaction ends, which serialises every write to one thread
    (§9), and `thread.powers` holds the rights the actor has over it through a profile beside its token's
    (rooms: a room moderator's `lock`, a room verifier's `verify`, §20), read in the same query. Only a write
    acts with them, on the thread it locked: a read's thread has none unless it asks for them with
    powers=True (the console, to offer a room moderator its acts), and its query builds no condition for
    them (the ORM's building of them cost a read more CPU than the rest of its query)."""
    require_right(actor, right)
    sight, powers = visible_threads_q(actor), powers_q(actor) if lock or powers else {}
    if sight or powers:
        rows = Thread.objects.filter(sight, pk=thread_id).annotate(**{
            f"power_{name}": Case(When(condition, then=Value(True)), default=Value(False), output_field=BooleanField())
            for name, condition in powers.items()})
        thread = (rows.select_for_update(of=("self",)) if lock else rows).first()
    else:  # the read every write makes: the cheapest query for it (forum.rows)
        thread = one_row(Thread, lock=lock, id=thread_id)
    if thread is None:
        raise NotFound("thread", f"th_{thread_id}")
    thread.powers = frozenset(name for name in powers if getattr(thread, f"power_{name}"))
    return thread


def access_message(actor, message_id, *, right):
    """The message, if `actor` holds `right` and may see its thread: else token_right_missing, or
    not_found."""
    require_right(actor, right)
    message = visible_messages(actor).filter(pk=message_id).first()
    if message is None:
        raise NotFound("message", f"msg_{message_id}")
    return message


def access_event(actor, event_id, *, right):
    """The state event, if `actor` holds `right` and may see its thread: else token_right_missing, or
    not_found."""
    require_right(actor, right)
    event = visible_events(actor).filter(pk=event_id).first()
    if event is None:
        raise NotFound("event", f"ev_{event_id}")
    return event


# --- what the profiles add to the one check (rooms, §20) ---------------------------------------------------

def _all(conditions):
    """The AND of the conditions that are not None, or None."""
    present = [condition for condition in conditions if condition is not None]
    return reduce(and_, present) if present else None


def list_narrowing(actor, args):
    """The Q on threads of the profiles' list arguments in `args` (rooms: `room=`), or None. It refuses what
    it cannot name (not_found) before anything is read."""
    return _all(profile.narrow(actor, args) for profile in PROFILES.values() if profile.narrow is not None)


def room_threads_q(actor, room):
    """The Q on threads now in the room `room` names, if `actor` may see that room (rooms: the check of one
    `room=` on a list, §20): else not_found (detail.object "room"), as for a room that does not exist; and
    so too where no profile places threads in rooms."""
    narrowed = list_narrowing(actor, {"room": room})
    if narrowed is None:
        raise NotFound("room", room)
    return narrowed


def latest_in(actor, where):
    """The newest message and state event `actor` may see of the threads `where` (a Q on threads) admits,
    as a pair of ids: whether anything was written there since, for a follower that cannot be told which
    thread a write was (a note concerning everyone)."""
    return (within(visible_messages(actor), where).aggregate(newest=Max("id"))["newest"],
            within(visible_events(actor), where).aggregate(newest=Max("id"))["newest"])


def visible_places(actor):
    """The places (rooms, §20) `actor` may see, as (number, archived, its last change) triples
    (forum.profiles.Profile.places): empty where no profile has places."""
    return frozenset(place for profile in PROFILES.values() if profile.places is not None
                     for place in profile.places(actor))


def inbox_reach(actor):
    """The Q on threads of which questions to `anyone` reach `actor`'s inbox (§11; rooms: the unmuted
    members of the thread's room, §20), or None for all of them."""
    return _all(profile.reach(actor) for profile in PROFILES.values() if profile.reach is not None)


def reaches_inbox(actor, thread_id):
    """Whether a question to anyone in the thread reaches `actor`'s inbox by inbox_reach (the inbox topic of
    a webhook, §17)."""
    reach = inbox_reach(actor)
    return reach is None or Thread.objects.filter(reach, pk=thread_id).exists()


def powers_q(actor):
    """{right: the Q of the threads over which `actor` holds that right through a profile}, for the rights
    its token lacks (forum.profiles.Profile.powers; rooms: a room moderator's `lock`, §20)."""
    found: dict[str, Q] = {}
    for profile in PROFILES.values():
        for right, condition in (profile.powers(actor) if profile.powers is not None else {}).items():
            if right not in actor.rights:
                found[right] = found[right] | condition if right in found else condition
    return found


def escalated_q():
    """The threads the profiles put in the moderation queue (forum.profiles.Profile.escalated), or None."""
    conditions = [profile.escalated() for profile in PROFILES.values() if profile.escalated is not None]
    return reduce(or_, conditions) if conditions else None


def within(queryset, threads_q, thread_field="thread"):
    """`queryset` (of threads, or of rows with a `thread_field`) kept to the threads `threads_q` admits."""
    if threads_q is None:
        return queryset
    if queryset.model is Thread:
        return queryset.filter(threads_q)
    return queryset.filter(**{f"{thread_field}__in": Thread.objects.filter(threads_q).values("pk")})
