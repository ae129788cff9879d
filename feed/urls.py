from django.urls import path

from feed.views import event_stream

urlpatterns = [
    path("events/stream", event_stream, name="event_stream"),
]
