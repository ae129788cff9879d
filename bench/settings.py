"""The benchmark's server: the production settings, with the URL configuration that adds the floor."""
from parley_site.settings import *  # noqa: F401,F403

ROOT_URLCONF = "bench.urls"
