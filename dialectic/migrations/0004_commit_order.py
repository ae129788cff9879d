"""Commit-ordered cursors (forum.commit_order): each claim records the transaction that asserted it (the
column's default, as forum 0015 sets it up), kept on updates by the forum's trigger function; existing
claims keep 0."""
from django.db import migrations, models

import forum.migration_operations
from forum.migration_operations import RunSQLOnPostgreSQL

CREATE = """
CREATE TRIGGER parley_claim_xact_kept BEFORE UPDATE ON dialectic_claim
    FOR EACH ROW WHEN (NEW.xact IS DISTINCT FROM OLD.xact) EXECUTE FUNCTION parley_row_xact_kept();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_claim_xact_kept ON dialectic_claim;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('dialectic', '0003_translatable_names'),
        ('forum', '0015_commit_order'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='xact',
            field=models.BigIntegerField(default=0, editable=False),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name='claim',
            name='xact',
            field=models.BigIntegerField(db_default=forum.migration_operations.CurrentTransaction(), editable=False),
        ),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(fields=['xact', 'id'], name='claim_order_idx'),
        ),
        RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP),
    ]
