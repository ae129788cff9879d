"""Commit-ordered cursors (forum.commit_order): each claim records the transaction that asserted it, set
on PostgreSQL by the forum's trigger function (forum 0013) and kept on updates; existing claims keep 0."""
from django.db import migrations, models

from forum.migration_operations import RunSQLOnPostgreSQL

CREATE = """
CREATE TRIGGER parley_claim_xact_set BEFORE INSERT ON dialectic_claim
    FOR EACH ROW EXECUTE FUNCTION parley_row_xact();
CREATE TRIGGER parley_claim_xact_kept BEFORE UPDATE ON dialectic_claim
    FOR EACH ROW WHEN (NEW.xact IS DISTINCT FROM OLD.xact) EXECUTE FUNCTION parley_row_xact();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_claim_xact_kept ON dialectic_claim;
DROP TRIGGER IF EXISTS parley_claim_xact_set ON dialectic_claim;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('dialectic', '0003_translatable_names'),
        ('forum', '0013_commit_order'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='xact',
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(fields=['xact', 'id'], name='claim_order_idx'),
        ),
        RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP),
    ]
