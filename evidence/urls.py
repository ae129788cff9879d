from django.urls import path

from evidence.views import BytesView, MetaView, RedactView, UploadView

urlpatterns = [
    path("artifacts", UploadView.as_view()),
    path("artifacts/<str:ref>", BytesView.as_view()),
    path("artifacts/<str:ref>/meta", MetaView.as_view()),
    path("artifacts/<str:ref>/redact", RedactView.as_view()),
]
