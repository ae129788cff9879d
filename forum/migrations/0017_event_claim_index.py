"""A claim's events by its number (partial: most events are a thread's): the reputation profile reads them for
every line it computes (§21), and without it each read scanned every event."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('forum', '0016_thread_room'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='stateevent',
            index=models.Index(condition=models.Q(('claim_number__isnull', False)), fields=['claim_number'], name='event_claim_idx'),
        ),
    ]
