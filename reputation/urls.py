"""The REST routes of the reputation profile (§21): each names the operation it runs (reputation.api)."""
from django.urls import path

from reputation import api

urlpatterns = [
    path("reputation/<str:ref>", api.RecordView.as_view()),
    path("reputation/<str:ref>/outcomes", api.OutcomesView.as_view()),
]
