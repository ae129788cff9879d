from django.urls import path

from evidence import operations
from forum.api.views import ReadView

urlpatterns = [
    path("claims/<str:ref>/attestation", ReadView.as_view(operation=operations.EXPORT_ATTESTATION,
                                                          path_argument="claim")),
]
