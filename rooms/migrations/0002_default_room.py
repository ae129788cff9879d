"""The default room (§20, forum.models.DEFAULT_ROOM_NUMBER): every thread that exists already is in it, as
forum's migration thread_room put it there, and every thread opened without naming a room goes there."""
from django.conf import settings
from django.core.management.color import no_style
from django.db import migrations
from django.utils import timezone

DEFAULT_ROOM_NUMBER = 1  # forum.models.DEFAULT_ROOM_NUMBER, as it was when this migration was written


def create_default_room(apps, schema_editor):
    room = apps.get_model("rooms", "Room")
    room.objects.get_or_create(pk=DEFAULT_ROOM_NUMBER, defaults={
        "slug": settings.PARLEY_ROOMS["default_slug"], "name": settings.PARLEY_ROOMS["default_name"],
        "created_at": timezone.now()})
    # The row was given its number: the sequence must start past it, or the next room would collide.
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [room]):
            cursor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("rooms", "0001_initial"), ("forum", "0016_thread_room")]

    operations = [migrations.RunPython(create_default_room, migrations.RunPython.noop)]
