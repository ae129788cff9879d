"""Who may do what in the console: every staff member reads; nobody adds, changes or deletes history
through a form; acting as the human needs `forum.moderate_thread` (granted per user or group)."""

from forum.actors import Actor
from forum.models import Right


def can_act_as_human(user):
    return Right.WRITE in Actor.for_user(user).rights


class StaffReadOnly:
    """A ModelAdmin mixin for threads and their history: read by staff, changed only through services."""

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_moderate_permission(self, request):
        return can_act_as_human(request.user)
