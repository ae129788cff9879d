"""The REST routes of the rooms profile (§20): each names the operations it runs (rooms.api)."""
from django.urls import path

from forum.api.views import WriteView
from rooms import api, operations

urlpatterns = [
    path("threads/<str:ref>/move", WriteView.as_view(operation=operations.MOVE_THREAD, path_argument="thread")),
    path("rooms", api.RoomsView.as_view()),
    path("rooms/<str:ref>", api.RoomView.as_view()),
    path("rooms/<str:ref>/join", api.JoinView.as_view()),
    path("rooms/<str:ref>/leave", api.LeaveView.as_view()),
    path("rooms/<str:ref>/archive", api.ArchiveView.as_view()),
    path("rooms/<str:ref>/members", api.MembersView.as_view()),
    path("rooms/<str:ref>/members/<str:identity>", api.MemberView.as_view()),
    path("rooms/<str:ref>/log", api.LogView.as_view()),
]
