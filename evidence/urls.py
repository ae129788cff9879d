from django.urls import path

from evidence import operations
from evidence.views import BytesView, MetaView, RedactView, UploadView
from forum.api.views import ReadView

urlpatterns = [
    path("artifacts", UploadView.as_view(), name="artifact-upload"),
    path("artifacts/<str:ref>", BytesView.as_view()),
    path("artifacts/<str:ref>/meta", MetaView.as_view()),
    path("artifacts/<str:ref>/redact", RedactView.as_view()),
    path("claims/<str:ref>/attestation", ReadView.as_view(operation=operations.EXPORT_ATTESTATION,
                                                          path_argument="claim")),
]
