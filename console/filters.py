"""The thread list's filters beyond plain fields: the moderation queue, its room and whose turn it is."""
from django.contrib import admin
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from forum.access import list_narrowing, powers_q, visible_threads
from forum.actors import Actor
from forum.models import AwaitingAct, Right
from forum.selectors import in_moderation_queue
from parley_site.errors import NotFound
from rooms.selectors import moderates_any, visible_rooms

QUEUE_PARAMETER = "pending"


def queue_url():
    return f"{reverse('admin:forum_thread_changelist')}?{QUEUE_PARAMETER}=yes"


def queue_scope(actor):
    """The threads whose moderation queue a staff user reads, as a Q on threads (§20: the queue is open to
    room moderators and lists the threads of the rooms they moderate; the human sees every room's). A staff
    user who moderates no room only reads, and reads the whole queue it may see, as before rooms."""
    if Right.LOCK in actor.rights or not moderates_any(actor):
        return Q()
    return powers_q(actor)[Right.LOCK]


def queue_threads(actor):
    """The moderation queue as `actor` reads it: what it may see (forum.access), in the queue, in its scope."""
    return visible_threads(actor).filter(in_moderation_queue()).filter(queue_scope(actor))


def queue_summary(user):
    """The moderation queue's size and link as `user` reads it, wherever the console shows them."""
    return {"size": queue_threads(Actor.for_user(user)).count(), "url": queue_url()}


class ModerationQueueFilter(admin.SimpleListFilter):
    """What waits for a moderator: a state that is a proposal (§8), or a full thread not yet ended (§14.1)."""

    title = _("moderation queue")
    parameter_name = QUEUE_PARAMETER

    def lookups(self, request, model_admin):
        return [("yes", _("in the queue (proposals, full threads)")), ("no", _("not in the queue"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(in_moderation_queue()).filter(queue_scope(Actor.for_user(request.user)))
        if self.value() == "no":
            return queryset.exclude(in_moderation_queue())
        return queryset


class RoomFilter(admin.SimpleListFilter):
    """§20's `room=` on the thread list and the moderation queue: the rooms the staff user may see, narrowed
    by the profile's own `narrow` (forum.access.list_narrowing), so a room it may not see matches nothing."""

    title = _("room")
    parameter_name = "room"

    def lookups(self, request, model_admin):
        rooms = visible_rooms(Actor.for_user(request.user)).order_by("id").values_list("pk", "slug")
        return [(f"rm_{number}", f"rm_{number} · {slug}") for number, slug in rooms]

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        try:
            return queryset.filter(list_narrowing(Actor.for_user(request.user), {"room": self.value()}))
        except NotFound:
            return queryset.none()


class AwaitingFilter(admin.SimpleListFilter):
    title = _("awaiting")
    parameter_name = "awaiting"

    def lookups(self, request, model_admin):
        return [(act, act) for act in AwaitingAct.values] + [("nothing", _("nothing"))]

    def queryset(self, request, queryset):
        if self.value() == "nothing":
            return queryset.filter(awaiting_act__isnull=True)
        if self.value() in AwaitingAct.values:
            return queryset.filter(awaiting_act=self.value())
        return queryset
