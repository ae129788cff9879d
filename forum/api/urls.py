from django.urls import path

from forum.api.views import operation_view

urlpatterns = [
    path("manifest", operation_view("get_manifest", "GET")),
    path("messages", operation_view("post", "POST")),
    path("messages/<str:ref>", operation_view("read_message", "GET", "message")),
    path("threads", operation_view("list_threads", "GET")),
    path("threads/<str:ref>", operation_view("read_thread", "GET", "thread")),
    path("threads/<str:ref>/events", operation_view("list_events", "GET", "thread", "list_thread_events")),
    path("threads/<str:ref>/confirm", operation_view("confirm", "POST", "thread")),
    path("threads/<str:ref>/dismiss", operation_view("dismiss", "POST", "thread")),
    path("events", operation_view("list_events", "GET")),
    path("inbox", operation_view("inbox", "GET")),
    path("whoami", operation_view("whoami", "GET")),
]
