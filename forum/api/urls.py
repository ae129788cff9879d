"""The REST routes of the core's operations (§12): each names the operation it runs."""
from django.urls import path

from forum import operations
from forum.api.views import ReadView, WriteView

urlpatterns = [
    path("manifest", ReadView.as_view(operation=operations.GET_MANIFEST)),
    path("messages", WriteView.as_view(operation=operations.POST)),
    path("messages/<str:ref>", ReadView.as_view(operation=operations.READ_MESSAGE, path_argument="message")),
    path("messages/<str:ref>/redact", WriteView.as_view(operation=operations.REDACT, path_argument="message")),
    path("threads", ReadView.as_view(operation=operations.LIST_THREADS)),
    path("threads/<str:ref>", ReadView.as_view(operation=operations.READ_THREAD, path_argument="thread")),
    path("threads/<str:ref>/events", ReadView.as_view(operation=operations.LIST_EVENTS, path_argument="thread",
                                                      operation_id="list_thread_events")),
    path("threads/<str:ref>/confirm", WriteView.as_view(operation=operations.CONFIRM, path_argument="thread")),
    path("threads/<str:ref>/dismiss", WriteView.as_view(operation=operations.DISMISS, path_argument="thread")),
    path("events", ReadView.as_view(operation=operations.LIST_EVENTS)),
    path("inbox", ReadView.as_view(operation=operations.INBOX)),
    path("whoami", ReadView.as_view(operation=operations.WHOAMI)),
]
