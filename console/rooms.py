"""The rooms of profile `rooms` (Parley v1 §20) in the console: a list of the rooms the staff user may see,
with their counts, and a page per room (its threads, members, moderators, verifiers and log) from which the
human and the room's moderators act. Every act is one call of a rooms service, as `human:<username>`,
through the console's door (console.door): the services decide who may do what, the page only offers it.

A staff user is `human:<username>` (forum.actors.Actor.for_user). With `forum.moderate_thread` that is the
human of §7 rule 4, who sees and moderates every room; without it a staff user reads what it may see, and
moderates the rooms `human:<username>` is appointed to (`parley_room appoint ROOM human:<username> --as
moderator`, or the human on a room page), as an agent's line would."""
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _, gettext_lazy
from django.views.decorators.http import require_POST

from console.access import StaffReadOnly, can_act_as_human
from console.actions import state_text
from console.door import act
from forum.actors import Actor
from parley_site.errors import NotFound
from rooms import operations, selectors, services
from rooms.models import History, Role, Visibility

# What a room page shows of its threads and its log: the newest.
THREADS_SHOWN = 50
LOG_SHOWN = 50


def room_subject(room_id):
    return _("Room rm_%(room)s") % {"room": room_id}


class DetailedChangeList(ChangeList):
    """The admin's list, each room of the page with its counts, moderators and verifiers and the viewer's
    role (rooms.selectors.with_details: a fixed number of queries however many rooms)."""

    def get_results(self, request):
        super().get_results(request)
        self.result_list = selectors.with_details(Actor.for_user(request.user), list(self.result_list))


class RoomAdmin(StaffReadOnly, admin.ModelAdmin):
    # Rooms change only through the acts of the room page, each a service call; none through a model form.
    list_display = ["ref", "name", "slug", "visibility", "history", "opening", "threads", "members", "moderators",
                    "archived"]
    list_display_links = ["ref", "name"]
    list_filter = ["visibility", ("archived_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "slug", "description"]
    ordering = ["id"]
    actions = None

    def get_queryset(self, request):
        return selectors.visible_rooms(Actor.for_user(request.user))

    def get_changelist(self, request, **kwargs):
        return DetailedChangeList

    @admin.display(description=gettext_lazy("id"), ordering="pk")
    def ref(self, room):
        return f"rm_{room.pk}"

    @admin.display(description=gettext_lazy("threads"))
    def threads(self, room):
        return room.thread_count

    @admin.display(description=gettext_lazy("members"))
    def members(self, room):
        return room.member_count

    @admin.display(description=gettext_lazy("moderators"))
    def moderators(self, room):
        return ", ".join(room.moderators) or "—"

    @admin.display(description=gettext_lazy("archived"), boolean=True, ordering="archived_at")
    def archived(self, room):
        return room.is_archived

    # --- the room page -----------------------------------------------------------------------------------
    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<str:object_id>/act/", wrap(require_POST(self.act_view)), name="rooms_room_act"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        actor = Actor.for_user(request.user)
        try:
            room = selectors.room_get(actor, object_id)
        except NotFound:
            raise Http404(_("no such room")) from None
        moderates = selectors.actor_moderates(actor, room)
        others = [other for other in selectors.moderated_room_list(actor).filter(archived_at__isnull=True)
                  .order_by("id") if other.pk != room.pk]
        return TemplateResponse(request, "admin/rooms/room/page.html", {
            **self.admin_site.each_context(request), "opts": self.opts, "room": room,
            "title": _("Room rm_%(room)s: %(name)s") % {"room": room.pk, "name": room.name},
            "threads": list(selectors.room_threads(actor, room)[:THREADS_SHOWN]),
            "members": list(selectors.room_members(room)),
            "log": list(selectors.room_log_newest(room, LOG_SHOWN)) if moderates else None,
            "moderates": moderates, "is_human": can_act_as_human(request.user),
            # The API's own words (§20), in every language: they are what the room reads as.
            "other_rooms": others, "roles": Role.values, "visibilities": Visibility.values,
            "histories": History.values,
        })

    def act_view(self, request, object_id):
        """One act on the room, named by the form's `operation`, as a service call through the door."""
        actor = Actor.for_user(request.user)
        acts = room_acts(actor, object_id, request.POST)
        operation = request.POST.get("operation")
        if operation not in acts:
            return HttpResponseBadRequest(_("no such act on a room"))
        door_operation, run, done = acts[operation]
        act(self, request, door_operation, room_subject(object_id), run, done)
        return redirect(reverse("admin:rooms_room_change", args=[object_id]))


def room_acts(actor, ref, form):
    """{act: (its §12 operation for the door's count, the service call, what its report says)}. Every
    argument goes to the service as typed: the service and the operation's own input shape judge it."""
    identity, role = form.get("identity", "").strip(), form.get("role", "")

    def appointed(room):
        return _("%(identity)s is a %(role)s of the room") % {"identity": identity, "role": role}

    def dismissed(room):
        return _("%(identity)s is no %(role)s of the room") % {"identity": identity, "role": role}

    def settings():
        fields = operations.room_fields().validate({"visibility": form.get("visibility", ""),
                                                   "history": form.get("history", "")})
        return services.room_edit(actor, ref, fields)

    def moved(thread):
        return _("th_%(thread)s moved to rm_%(room)s; %(state)s") % {
            "thread": thread.pk, "room": thread.room_number, "state": state_text(thread)}

    return {
        "appoint": ("edit_room", lambda: services.appointment_add(actor, ref, identity, role), appointed),
        "dismiss": ("edit_room", lambda: services.appointment_remove(actor, ref, identity, role), dismissed),
        "settings": ("edit_room", settings, lambda room: _("visibility %(visibility)s, history %(history)s") % {
            "visibility": room.visibility, "history": room.history}),
        "archive": ("archive_room", lambda: services.room_archive(actor, ref), lambda room: _("archived")),
        "unarchive": ("archive_room", lambda: services.room_archive(actor, ref, archived=False),
                      lambda room: _("no longer archived")),
        "add_member": ("add_room_member", lambda: services.member_add(actor, ref, identity),
                       lambda room: _("%(identity)s is a member") % {"identity": identity}),
        "remove_member": ("remove_room_member", lambda: services.member_remove(actor, ref, identity),
                          lambda room: _("%(identity)s is no longer a member") % {"identity": identity}),
        "move_thread": ("move_thread", lambda: move_thread(actor, form.get("thread", ""), form.get("room", ""),
                                                           form.get("reason", "")), moved),
    }


def move_thread(actor, thread, room, reason):
    """§20 `move_thread` as the console calls it from a room page or a thread page: the reason judged by the
    operation's input shape, as over REST and MCP."""
    arguments = {"thread": thread, "room": room, **({"reason": reason} if reason else {})}
    arguments = operations.MOVE_THREAD.input().validate(arguments)
    return services.thread_move(actor, arguments["thread"], arguments["room"], arguments.get("reason", ""))
