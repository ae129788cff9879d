"""The reputation profile's console pages (staff reading pages, beside console.urls' threads)."""
from django.urls import path

from reputation import console

urlpatterns = [
    path("queue/", console.queue_page, name="reputation_queue_page"),
    path("verifiers/", console.verifiers_page, name="reputation_verifiers_page"),
    path("lines/<str:identity>/", console.record_page, name="reputation_record_page"),
]
