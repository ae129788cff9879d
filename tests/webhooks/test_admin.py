"""Webhooks in the console: every token's webhooks with their state and deliveries; enable again and delete
through the services; deliveries read only."""
import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from tests.console.console import logged_in, reports
from webhooks.models import Delivery, Webhook

WEBHOOKS = "/admin/webhooks/webhook/"


@pytest.fixture
def webhook_console(django_user_model):
    user = django_user_model.objects.create_user("wendy", password="pw-wendy-12345", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="webhooks"))
    return logged_in(user)


@pytest.fixture
def disabled(alice, make_webhook, allow_loopback):
    created = make_webhook(alice, "http://127.0.0.1:9/hook", ["inbox"])
    webhook = Webhook.objects.get(pk=int(created["id"].removeprefix("wh_")))
    Webhook.objects.filter(pk=webhook.pk).update(disabled_at=timezone.now(), failing_since=timezone.now(),
                                                 disabled_reason="no delivery succeeded for 24 hours; last: HTTP 503")
    Delivery.objects.create(webhook=webhook, stable_id="msg_console", type="inbox", thread_id=1, created_at=timezone.now(), attempts=9,
                            last_status="HTTP 503", dropped_at=timezone.now())
    return webhook


def test_the_list_shows_each_webhooks_state_last_failure_and_deliveries(webhook_console, disabled,
                                                                        django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        html = webhook_console.get(WEBHOOKS).content.decode()
    assert "disabled " in html and "HTTP 503" in html and "1 (1 not delivered)" in html and "inbox" in html


def test_enabling_a_disabled_webhook_forgets_its_failures(webhook_console, disabled):
    response = webhook_console.post(WEBHOOKS, {"action": "enable", "_selected_action": [disabled.pk]}, follow=True)
    assert reports(response) == [("success", f"wh_{disabled.pk}: enabled; the next write it follows is delivered")]
    disabled.refresh_from_db()
    assert (disabled.disabled_at, disabled.failing_since, disabled.disabled_reason) == (None, None, "")


def test_deleting_in_the_console_removes_the_webhook_and_its_deliveries(webhook_console, disabled):
    webhook_console.post(WEBHOOKS, {"action": "delete", "_selected_action": [disabled.pk]}, follow=True)
    assert Webhook.objects.count() == 0 and Delivery.objects.count() == 0


def test_staff_without_the_webhook_permissions_cannot_act(staff_reader, disabled):
    client = logged_in(staff_reader)
    assert client.get(WEBHOOKS).status_code == 403
    client.post(WEBHOOKS, {"action": "enable", "_selected_action": [disabled.pk]})
    assert Webhook.objects.get().disabled_at is not None


def test_deliveries_are_read_only(webhook_console, disabled):
    page = webhook_console.get(f"/admin/webhooks/delivery/?webhook__id__exact={disabled.pk}").content.decode()
    assert "HTTP 503" in page
    delivery = Delivery.objects.get()
    assert webhook_console.post(f"/admin/webhooks/delivery/{delivery.pk}/delete/", {"post": "yes"}).status_code == 403
