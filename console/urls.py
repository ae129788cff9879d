"""The staff reading pages, outside the admin."""
from django.urls import path

from console import pages

urlpatterns = [
    path("", pages.thread_list_page, name="forum_thread_list_page"),
    path("<str:ref>/", pages.thread_page, name="forum_thread_page"),
]
