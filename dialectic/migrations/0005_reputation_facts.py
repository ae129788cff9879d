"""The facts §21's reputation reads beside §10's: each claim's statement digest (§18's subject digest) and
whether an act came from a line that could seal the claim. Existing claims get their digest; an existing
refutation counts as by a sealer when the human made it or its token holds `verify` now (a room verifier's
appointment at the time is not recorded anywhere, so such an old refutation waits hold_days)."""
import hashlib

from django.db import migrations, models
from django.db.models import Q


def fill(apps, schema_editor):
    Claim = apps.get_model("dialectic", "Claim")
    ClaimAct = apps.get_model("dialectic", "ClaimAct")
    for claim in Claim.objects.filter(statement_sha256="").exclude(statement="").only("id", "statement").iterator():
        digest = hashlib.sha256(claim.statement.encode()).hexdigest()
        Claim.objects.filter(pk=claim.pk).update(statement_sha256=digest)
    ClaimAct.objects.filter(Q(message__author_kind="user") | Q(message__token__can_verify=True),
                            kind="refute").update(by_sealer=True)


class Migration(migrations.Migration):

    dependencies = [
        ('dialectic', '0004_commit_order'),
        ('forum', '0016_thread_room'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='statement_sha256',
            field=models.CharField(blank=True, default='', max_length=64, verbose_name='statement SHA-256'),
        ),
        migrations.AddField(
            model_name='claimact',
            name='by_sealer',
            field=models.BooleanField(default=False, verbose_name='by a sealer'),
        ),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(fields=['statement_sha256'], name='claim_statement_idx'),
        ),
        migrations.AddIndex(
            model_name='claimact',
            index=models.Index(fields=['identity', 'claim'], name='claim_act_identity_idx'),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
