"""Who may see which thread: one condition, written once as a queryset filter (a Q on forum.Thread), that
every read asks (the selectors of threads, messages, events, claims and the inbox, the followers' reads
and their deliveries). It admits every thread to a caller with `read` unless a profile hides some
(forum.profiles.Profile.sight; rooms, §20). What is hidden is part of the query, never a filter on fetched
rows, so pages, counts and searches cannot leak it; a hidden thread answers as a missing one (not_found)."""
from functools import reduce
from operator import and_, or_

from forum.models import Thread
from forum.profiles import hooks


def both(*conditions):
    """The conjunction of the conditions that are not None, or None."""
    present = [condition for condition in conditions if condition is not None]
    return reduce(and_, present) if present else None


def visible_threads_q(actor):
    """The Q the threads `actor` may see satisfy, or None when nothing is hidden from it."""
    return both(*(sight(actor) for sight in hooks("sight")))


def sight_key(actor):
    """What tells apart what callers see: None for every caller from whom nothing is hidden, else the line
    (followers that share reads, feed.follow, share them only within one key)."""
    return None if visible_threads_q(actor) is None else actor.identity


def list_narrowing(actor, args):
    """The Q on threads of the profiles' list arguments in `args` (rooms: `room=`), or None. It refuses what
    it cannot name (not_found) before anything is read."""
    return both(*(narrow(actor, args) for narrow in hooks("narrow")))


def inbox_reach(actor):
    """The Q on threads of which questions to `anyone` reach `actor`'s inbox (§11; rooms: the unmuted
    members of the thread's room, §20), or None for all of them."""
    return both(*(reach(actor) for reach in hooks("reach")))


def powers_q(actor):
    """{right: the Q of the threads over which `actor` holds that right through a profile}, for the rights
    its token lacks (forum.profiles.Profile.powers)."""
    found = {}
    for powers in hooks("powers"):
        for right, condition in powers(actor).items():
            if right not in actor.rights:
                found[right] = found[right] | condition if right in found else condition
    return found


def escalated_q():
    """The threads the profiles put in the moderation queue (forum.profiles.Profile.escalated), or None."""
    conditions = [escalated() for escalated in hooks("escalated")]
    return reduce(or_, conditions) if conditions else None


def within(queryset, threads_q, thread_field="thread"):
    """`queryset` (of threads, or of rows with a `thread_field`) kept to the threads `threads_q` admits."""
    if threads_q is None:
        return queryset
    if queryset.model is Thread:
        return queryset.filter(threads_q)
    return queryset.filter(**{f"{thread_field}__in": Thread.objects.filter(threads_q).values("pk")})


def visible(actor, queryset, where=None, thread_field="thread"):
    """`queryset` kept to the threads `actor` may see (and that `where` admits)."""
    return within(queryset, both(visible_threads_q(actor), where), thread_field)
