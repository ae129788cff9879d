from django.apps import AppConfig


class DialecticConfig(AppConfig):
    name = "dialectic"
