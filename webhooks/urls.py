"""The REST routes of webhooks (§17); each view names the operation it runs per method (webhooks.api)."""
from django.urls import path

from webhooks.api import WebhooksView, WebhookView

urlpatterns = [
    path("webhooks", WebhooksView.as_view()),
    path("webhooks/<str:ref>", WebhookView.as_view()),
]
