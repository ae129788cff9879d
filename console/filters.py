"""The thread list's filters beyond plain fields: the moderation queue and whose turn it is."""
from django.contrib import admin
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from forum.models import AwaitingAct
from forum.selectors import in_moderation_queue, moderation_queue_size

QUEUE_PARAMETER = "pending"


def queue_url():
    return f"{reverse('admin:forum_thread_changelist')}?{QUEUE_PARAMETER}=yes"


def queue_summary():
    """The moderation queue's size and link, wherever the console shows them."""
    return {"size": moderation_queue_size(), "url": queue_url()}


class ModerationQueueFilter(admin.SimpleListFilter):
    """What waits for a moderator: a state that is a proposal (§8), or a full thread not yet ended (§14.1)."""

    title = _("moderation queue")
    parameter_name = QUEUE_PARAMETER

    def lookups(self, request, model_admin):
        return [("yes", _("in the queue (proposals, full threads)")), ("no", _("not in the queue"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(in_moderation_queue())
        if self.value() == "no":
            return queryset.exclude(in_moderation_queue())
        return queryset


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
