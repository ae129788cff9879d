"""Once the feed's notes by trigger (a thread that starts awaiting, a state event). They are the feed's,
and moved to feed/migrations/0001_notes_by_trigger.py, which replaces them where this migration made them;
it stays, empty, because databases have it applied and later migrations depend on it."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("forum", "0004_inbox_by_identity")]
    operations = []
