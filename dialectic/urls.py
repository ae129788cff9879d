from django.urls import path

from dialectic import operations
from forum.api.views import ReadView

urlpatterns = [
    path("claims", ReadView.as_view(operation=operations.LIST_CLAIMS)),
    path("claims/<str:ref>", ReadView.as_view(operation=operations.READ_CLAIM, path_argument="claim")),
]
