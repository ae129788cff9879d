"""Webhooks in the console (§17): every token's webhooks with their state (enabled, failing since, disabled and
why), their deliveries (read only), and two actions through the services: enable a disabled webhook again,
delete webhooks. Tokens create theirs over REST, where the secret is shown to them once."""
from django.contrib import admin, messages
from django.db.models import Count, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils.html import format_html

from console.access import StaffReadOnly
from forum.actors import Actor
from webhooks.models import Delivery, Webhook
from webhooks.services import webhook_enable, webhook_remove


@admin.action(description="Enable the selected webhooks again", permissions=["change"])
def enable(modeladmin, request, queryset):
    actor = Actor.for_user(request.user)
    for webhook in queryset.filter(disabled_at__isnull=False).order_by("pk"):
        webhook_enable(actor, webhook.pk)
        modeladmin.log_change(request, webhook, "Enabled again.")
        modeladmin.message_user(request, f"wh_{webhook.pk}: enabled; the next write it follows is delivered",
                                messages.SUCCESS)


@admin.action(description="Delete the selected webhooks", permissions=["change"])
def delete(modeladmin, request, queryset):
    actor, webhooks = Actor.for_user(request.user), list(queryset.order_by("pk"))
    modeladmin.log_deletions(request, webhooks)
    for webhook in webhooks:
        webhook_remove(actor, webhook.pk)
        modeladmin.message_user(request, f"wh_{webhook.pk}: deleted with its queued deliveries", messages.SUCCESS)


class WebhookAdmin(admin.ModelAdmin):
    list_display = ["id", "token", "url", "topic_names", "status", "last_failure", "deliveries_link", "created_at"]
    list_filter = [("disabled_at", admin.EmptyFieldListFilter), ("failing_since", admin.EmptyFieldListFilter)]
    list_select_related = ["token"]
    search_fields = ["url", "token__identity"]
    ordering = ["-id"]
    actions = [enable, delete]
    fields = readonly_fields = ["token", "url", "topic_names", "status", "failing_since", "disabled_at",
                                "disabled_reason", "last_failure", "deliveries_link", "created_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("topics").annotate(
            delivery_count=Count("deliveries"),
            failed_count=Count("deliveries", filter=Q(deliveries__delivered_at__isnull=True)),
            last_failed_status=Subquery(Delivery.objects.filter(webhook=OuterRef("pk"), attempts__gt=0)
                                        .exclude(last_status="delivered").order_by("-id").values("last_status")[:1]))

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # deletion goes through the service, as `delete`
        return actions

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="topics")
    def topic_names(self, webhook):
        return ", ".join(topic.name for topic in webhook.topics.all())

    @admin.display(description="status")
    def status(self, webhook):
        if webhook.disabled_at:
            return f"disabled {webhook.disabled_at:%Y-%m-%d %H:%M}"
        if webhook.failing_since:
            return f"failing since {webhook.failing_since:%Y-%m-%d %H:%M}"
        return "enabled"

    @admin.display(description="last failure")
    def last_failure(self, webhook):
        return webhook.last_failed_status or "-"

    @admin.display(description="deliveries")
    def deliveries_link(self, webhook):
        url = reverse("admin:webhooks_delivery_changelist") + f"?webhook__id__exact={webhook.pk}"
        return format_html('<a href="{}">{} ({} not delivered)</a>', url, webhook.delivery_count,
                           webhook.failed_count)


class DeliveryAdmin(StaffReadOnly, admin.ModelAdmin):
    list_display = ["stable_id", "webhook", "type", "thread_id", "event_id", "attempts", "last_status",
                    "next_attempt_at", "delivered_at", "dropped_reason"]
    list_filter = ["type", ("delivered_at", admin.EmptyFieldListFilter), ("dropped_at", admin.EmptyFieldListFilter)]
    list_select_related = ["webhook"]
    search_fields = ["stable_id"]
    ordering = ["-id"]


admin.site.register(Webhook, WebhookAdmin)
admin.site.register(Delivery, DeliveryAdmin)
