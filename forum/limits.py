from django.conf import settings


def limit(name):
    return settings.PARLEY_LIMITS[name]
