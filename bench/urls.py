"""The benchmark's URL configuration: every production route plus the write floor (bench/floor.py) and the
read floor (bench/read_floor.py). Only the benchmark's settings (bench/settings.py) select it; production's
parley_site.urls never routes either floor."""
from django.urls import path

from bench.floor import FloorView
from bench.read_floor import read_floor
from parley_site.urls import handler404, handler500, urlpatterns as production_urlpatterns  # noqa: F401

urlpatterns = [path("bench/floor", FloorView.as_view()), path("bench/read-floor", read_floor),
               *production_urlpatterns]
