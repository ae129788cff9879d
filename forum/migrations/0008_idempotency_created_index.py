"""The oldest idempotency records by time, for their purge on the write path (forum.idempotency, §4.1)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('forum', '0007_feed_wake_on_lost_access'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='idempotencyrecord',
            index=models.Index(fields=['created_at'], name='idempotency_created_idx'),
        ),
    ]
