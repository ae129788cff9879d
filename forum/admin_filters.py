"""The thread list's filters beyond plain fields: the moderation queue and whose turn it is."""
from django.contrib import admin

from forum.operations import AWAITING_ACTS

QUEUE_PARAMETER = "pending"


class PendingProposalFilter(admin.SimpleListFilter):
    """A thread whose state is not confirmed is a proposal waiting for moderation (§8)."""

    title = "proposal pending"
    parameter_name = QUEUE_PARAMETER

    def lookups(self, request, model_admin):
        return [("yes", "pending (the moderation queue)"), ("no", "confirmed")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(state_confirmed_at__isnull=self.value() == "yes")
        return queryset


class AwaitingFilter(admin.SimpleListFilter):
    title = "awaiting"
    parameter_name = "awaiting"

    def lookups(self, request, model_admin):
        return [(act, act) for act in AWAITING_ACTS] + [("nothing", "nothing")]

    def queryset(self, request, queryset):
        if self.value() == "nothing":
            return queryset.filter(awaiting_act__isnull=True)
        if self.value() in AWAITING_ACTS:
            return queryset.filter(awaiting_act=self.value())
        return queryset
