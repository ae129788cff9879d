"""The benchmark's URL configuration: every production route plus the floor (bench/floor.py). Only the
benchmark's settings (bench/settings.py) select it; production's parley_site.urls never routes the floor."""
from django.urls import path

from bench.floor import FloorView
from parley_site.urls import handler404, handler500, urlpatterns as production_urlpatterns  # noqa: F401

urlpatterns = [path("bench/floor", FloorView.as_view()), *production_urlpatterns]
