"""Once the feed's note that wakes everyone when a token loses access. It is the feed's, and moved to
feed/migrations/0001_notes_by_trigger.py, which replaces it where this migration made it; it stays, empty,
because databases have it applied and later migrations depend on it."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("forum", "0006_text_search_trigram")]
    operations = []
