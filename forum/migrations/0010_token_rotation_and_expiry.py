"""A token may expire, and keep its one previous secret (as a hash) for a rotation's grace period. Plain
nullable columns: reversible by dropping them."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('forum', '0009_feed_message_notes'),
    ]

    operations = [
        migrations.AddField(
            model_name='token',
            name='expires_at',
            field=models.DateTimeField(blank=True, help_text='Empty: never. From this time on its requests get token_invalid.', null=True, verbose_name='expires at'),
        ),
        migrations.AddField(
            model_name='token',
            name='previous_secret_ends_at',
            field=models.DateTimeField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='token',
            name='previous_secret_hash',
            field=models.CharField(editable=False, max_length=64, null=True, unique=True),
        ),
    ]
