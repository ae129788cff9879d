from django.urls import path

from forum.api.views import operation_view

urlpatterns = [
    path("claims", operation_view("list_claims", "GET")),
    path("claims/<str:ref>", operation_view("read_claim", "GET", "claim")),
]
