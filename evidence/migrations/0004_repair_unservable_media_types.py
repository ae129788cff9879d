"""Media types stored before the shape refused them (issue 22): a type quoting a CR, LF, NUL or any byte
beyond visible ASCII cannot be a Content-Type header, so every download of those bytes failed. They become
application/octet-stream, the type of an upload that declares none; the bytes are untouched."""
from django.db import migrations

REPAIRED = "application/octet-stream"


def servable(media_type):
    """What a header value may hold (RFC 9110 §5.5 without obs-text): visible ASCII, spaces and tabs."""
    return all(character == "\t" or " " <= character <= "~" for character in media_type)


def repair_media_types(apps, schema_editor):
    Artifact = apps.get_model("evidence", "Artifact")
    broken = [pk for pk, media_type in Artifact.objects.values_list("pk", "media_type").iterator()
              if not servable(media_type)]
    Artifact.objects.filter(pk__in=broken).update(media_type=REPAIRED)


class Migration(migrations.Migration):

    dependencies = [
        ('evidence', '0003_translatable_names'),
    ]

    operations = [
        # Nothing to undo: the broken types could not be served, and are not restored.
        migrations.RunPython(repair_media_types, migrations.RunPython.noop),
    ]
