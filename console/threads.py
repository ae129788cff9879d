"""The moderators' thread console. Staff read everything; every change is an action or a post that calls a
service as `human:<username>`, and only holders of `forum.moderate_thread` may take them."""
from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _, gettext_lazy
from django.views.decorators.http import require_POST

from console.access import StaffReadOnly
from console.actions import THREAD_ACTIONS, confirm_or_dismiss, post_as_human, redact_as_human, thread_subject
from console.filters import AwaitingFilter, ModerationQueueFilter, RoomFilter, queue_summary
from console.forms import HumanPostForm, ReasonForm
from console.pages import thread_outline
from console.door import act
from console.rooms import move_thread
from forum.access import access_message, access_thread, visible_threads_q
from forum.actors import Actor
from forum.filters import ThreadFilter
from forum.models import Right
from forum.selectors import pending_proposal, thread_history
from parley_site.errors import NotFound
from rooms.models import Room
from rooms.selectors import moderated_room_list, moderates_any

PROPOSAL_OPERATIONS = ("confirm", "dismiss")


class ThreadAdmin(StaffReadOnly, admin.ModelAdmin):
    # Threads are opened by posting an `ask` and change only through the actions and posts below.
    list_display = ["ref", "title", "room", "state_column", "awaiting", "creator", "message_count", "last_activity"]
    list_display_links = ["ref", "title"]
    list_filter = ["state", ModerationQueueFilter, RoomFilter, AwaitingFilter,
                   ("creator_identity", admin.AllValuesFieldListFilter)]
    search_fields = ["title"]
    search_help_text = gettext_lazy("Searches thread titles and message bodies.")
    ordering = ["-updated_at", "-id"]
    actions = THREAD_ACTIONS
    fields = ["ref", "title", "room", "state_column", "awaiting", "creator", "message_count", "created_at",
              "updated_at"]
    readonly_fields = fields
    change_form_template = "admin/forum/thread/change_form.html"

    # --- the list ----------------------------------------------------------------------------------------
    def get_queryset(self, request):
        # What the staff user may see (forum.access, §20: a private room's threads only for who sees the room);
        # whoever set the current state: on a pending proposal, the proposer (§8); the room's slug.
        marked_by = Subquery(pending_proposal(OuterRef("pk")).values("actor"))
        room_slug = Subquery(Room.objects.filter(pk=OuterRef("room_number")).values("slug"))
        visible = visible_threads_q(Actor.for_user(request.user))
        return super().get_queryset(request).filter(visible).annotate(marked_by=marked_by, room_slug=room_slug)

    def get_search_results(self, request, queryset, search_term):
        if not search_term:
            return queryset, False
        return ThreadFilter({"q": search_term}, queryset=queryset).qs, False

    @admin.display(description=gettext_lazy("id"), ordering="pk")
    def ref(self, thread):
        return f"th_{thread.pk}"

    @admin.display(description=gettext_lazy("room"), ordering="room_number")
    def room(self, thread):
        url = reverse("admin:rooms_room_change", args=[thread.room_number])
        return format_html('<a href="{}">rm_{} · {}</a>', url, thread.room_number, thread.room_slug)

    @admin.display(description=gettext_lazy("state"), ordering="state")
    def state_column(self, thread):
        return format_html("{}<br>{}", render_to_string("console/_badge.html", {"thread": thread}), self.mark(thread))

    @admin.display(description=gettext_lazy("mark"))
    def mark(self, thread):
        if thread.is_pending:
            return format_html(_("proposal by <strong>{}</strong> ({})"), thread.marked_by, thread.state_origin)
        return format_html(_("confirmed by {} ({})"), thread.state_confirmed_by, thread.state_origin)

    @admin.display(description=gettext_lazy("awaiting"), ordering="awaiting_act")
    def awaiting(self, thread):
        if not thread.awaiting_act:
            return _("nothing")
        return _("%(act)s from %(whom)s") % {"act": thread.awaiting_act, "whom": thread.awaiting_from}

    @admin.display(description=gettext_lazy("last activity"), ordering="updated_at")
    def last_activity(self, thread):
        return thread.updated_at

    @admin.display(description=gettext_lazy("creator"), ordering="creator_identity")
    def creator(self, thread):
        extension = f" / {thread.creator_extension}" if thread.creator_extension else ""
        return f"{thread.creator_identity}{extension}"

    # --- the thread page ---------------------------------------------------------------------------------
    def get_object(self, request, object_id, from_field=None):
        """The thread, read once per request: the page reads it before the admin's own change view does."""
        cache = request.__dict__.setdefault("_parley_threads", {})
        if (object_id, from_field) not in cache:
            cache[object_id, from_field] = super().get_object(request, object_id, from_field)
        return cache[object_id, from_field]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        thread = self.get_object(request, unquote(object_id))
        if thread is not None:
            actor = Actor.for_user(request.user)
            outline = thread_outline(actor, thread)
            moderates_room = self.moderates_room(request, thread)
            extra_context = {
                "thread": thread, "outline": outline, "history": thread_history(actor, thread),
                "post_form": HumanPostForm(messages=outline), "reason_form": ReasonForm(),
                "can_moderate": self.has_moderate_permission(request), "can_settle": moderates_room,
                "move_rooms": [room for room in moderated_room_list(actor).filter(archived_at__isnull=True)
                               .order_by("id") if room.pk != thread.room_number] if moderates_room else [],
                **(extra_context or {}),
            }
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("queue-count/", wrap(self.queue_count_view), name="forum_thread_queue_count"),
            path("<path:object_id>/post/", wrap(require_POST(self.post_view)), name="forum_thread_post"),
            path("<path:object_id>/settle/", wrap(require_POST(self.proposal_view)), name="forum_thread_settle"),
            path("<path:object_id>/redact/<int:message_id>/", wrap(self.redact_view), name="forum_thread_redact"),
            path("<path:object_id>/move/", wrap(require_POST(self.move_view)), name="forum_thread_move"),
        ] + super().get_urls()

    def queue_count_view(self, request):
        """The header's queue count alone, which console/live.js fetches on a page that shows no thread."""
        return TemplateResponse(request, "console/_queue_count.html", queue_summary(request.user))

    def moderated_thread(self, request, object_id, room_moderators=False):
        """The thread of a moderator's door: refused (403) to staff who only read; with room_moderators, a
        staff user appointed to moderate some room passes too, and the service judges this thread's room."""
        allowed = self.has_moderate_permission(request) or (
            room_moderators and moderates_any(Actor.for_user(request.user)))
        if not allowed:
            raise PermissionDenied
        thread = self.get_object(request, unquote(object_id))
        if thread is None:
            raise Http404(_("no such thread"))
        return thread

    def moderates_room(self, request, thread):
        """Whether the page offers confirm, dismiss and move: to the human, and to a staff user with `lock`'s
        powers over this thread as a moderator of its room (§20), as the thread's access check finds them."""
        if self.has_moderate_permission(request):
            return True
        actor = Actor.for_user(request.user)
        return Right.LOCK in access_thread(actor, thread.pk, right=Right.READ, powers=True).powers

    def thread_url(self, thread):
        return reverse("admin:forum_thread_change", args=[thread.pk])

    def post_view(self, request, object_id):
        """Post as the human from the thread page (any core kind), through the envelope validator."""
        thread = self.moderated_thread(request, object_id)
        form = HumanPostForm(request.POST, messages=thread_outline(Actor.for_user(request.user), thread))
        if form.is_valid() and post_as_human(self, request, form.envelope(thread.pk)) is not None:
            return redirect(self.thread_url(thread))
        # Refused: show the page again with what was typed. Django's change view renders only on GET.
        request.method = "GET"
        return self.change_view(request, object_id, extra_context={"post_form": form})

    def proposal_view(self, request, object_id):
        """Confirm or dismiss the thread's pending proposal from its page."""
        thread = self.moderated_thread(request, object_id, room_moderators=True)
        operation = request.POST.get("operation")
        if operation not in PROPOSAL_OPERATIONS:
            return HttpResponseBadRequest(_("operation must be confirm or dismiss"))
        confirm_or_dismiss(self, request, operation, thread.pk, request.POST.get("reason", ""))
        return redirect(self.thread_url(thread))

    def move_view(self, request, object_id):
        """§20 `move_thread` from the thread page: to a room the moderator picked, with an optional reason."""
        thread = self.moderated_thread(request, object_id, room_moderators=True)
        actor = Actor.for_user(request.user)
        act(self, request, "move_thread", thread_subject(thread.pk),
            lambda: move_thread(actor, f"th_{thread.pk}", request.POST.get("room", ""), request.POST.get("reason", "")),
            lambda moved: _("moved to rm_%(room)s") % {"room": moved.room_number})
        return redirect(self.thread_url(thread))

    def redact_view(self, request, object_id, message_id):
        """§17: a confirmation page for erasing one message of the thread, with an optional reason."""
        thread = self.moderated_thread(request, object_id)
        try:
            message = access_message(Actor.for_user(request.user), message_id, right=Right.READ)
        except NotFound:
            message = None
        if message is None or message.thread_id != thread.pk:
            raise Http404("no such message in this thread")
        form = ReasonForm(request.POST if request.method == "POST" else None)
        if (request.method == "POST" and form.is_valid()
                and redact_as_human(self, request, thread.pk, message.pk, form.cleaned_data["reason"])):
            return redirect(self.thread_url(thread))
        return TemplateResponse(request, "admin/forum/thread/redact.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta, "title": _("Redact msg_%(message)s") % {"message": message.pk},
            "thread": thread, "message": message, "form": form})
