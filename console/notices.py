"""The moderators' email digests in the console: each moderator opts in or out on a page of their own
("Email digests" in the header); whoever may change the rows (Django's own permissions) sees everyone's
choice in the admin list. The digests themselves are console.digests."""
from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext, gettext_lazy as _

from console.access import can_act_as_human
from console.models import ModeratorNotice


class NoticeForm(forms.ModelForm):
    class Meta:
        model = ModeratorNotice
        fields = ["opted_in"]


class ModeratorNoticeAdmin(admin.ModelAdmin):
    list_display = ["user", "email", "opted_in", "last_sent_at"]
    list_filter = ["opted_in"]
    list_select_related = ["user"]
    fields = ["user", "opted_in", "last_sent_at"]
    readonly_fields = ["user", "last_sent_at"]
    ordering = ["user__username"]

    def has_add_permission(self, request):
        return False  # a row appears when a moderator first saves their choice

    @admin.display(description=_("email address"), ordering="user__email")
    def email(self, notice):
        return notice.user.email or "—"

    def get_urls(self):
        mine = path("mine/", self.admin_site.admin_view(self.mine_view), name="console_moderatornotice_mine")
        return [mine] + super().get_urls()

    def mine_view(self, request):
        """The signed-in moderator's own choice. Only moderators get digests (console.digests)."""
        if not can_act_as_human(request.user):
            raise PermissionDenied
        notice = ModeratorNotice.objects.filter(user=request.user).first() or ModeratorNotice(user=request.user)
        form = NoticeForm(request.POST if request.method == "POST" else None, instance=notice)
        if form.is_valid():
            form.save()
            self.message_user(request, gettext("Your email digests are on.") if notice.opted_in
                              else gettext("Your email digests are off."), messages.SUCCESS)
            return redirect("admin:console_moderatornotice_mine")
        return TemplateResponse(request, "admin/console/moderatornotice/mine.html", {
            **self.admin_site.each_context(request), "opts": self.opts, "form": form,
            "title": gettext("Email digests"), "email": request.user.email, "notice": notice,
            "minutes": settings.PARLEY_NOTIFY_MINUTES,
        })
