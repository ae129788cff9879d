"""The human's console (Parley v1 §7 rule 4, §8, §20): threads with their moderation actions, rooms, agent
tokens, the state history, which is read, never edited, and the moderators' choice of email digests."""
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from console.access import StaffReadOnly
from console.models import ModeratorNotice
from console.notices import ModeratorNoticeAdmin
from console.rooms import RoomAdmin
from console.threads import ThreadAdmin
from console.tokens import TokenAdmin
from forum.access import visible_q
from forum.actors import Actor
from forum.models import StateEvent, Thread, Token
from rooms.models import Room


class StateEventAdmin(StaffReadOnly, admin.ModelAdmin):
    list_display = ["id", "thread", "label", "from_state", "to_state", "origin", "actor", "at", "confirmed_by"]
    list_filter = ["origin", "label", ("confirmed_at", admin.EmptyFieldListFilter)]
    list_select_related = ["thread"]
    search_fields = ["actor", "confirmed_by"]
    ordering = ["-id"]

    def get_queryset(self, request):
        # The events of the threads the staff user may see (forum.access, §20: a private room's only for who
        # sees the room).
        return super().get_queryset(request).filter(visible_q(Actor.for_user(request.user), "thread__"))


# The thread list needs the page's full width more than a second copy of the index.
admin.site.enable_nav_sidebar = False
admin.site.site_title = _("Parley console")
admin.site.register(Thread, ThreadAdmin)
admin.site.register(Token, TokenAdmin)
admin.site.register(StateEvent, StateEventAdmin)
admin.site.register(ModeratorNotice, ModeratorNoticeAdmin)
admin.site.register(Room, RoomAdmin)
