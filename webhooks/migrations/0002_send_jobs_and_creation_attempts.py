"""A webhook's deliveries are sent by one job at a time (Webhook.send_job) instead of a job per attempt. The
jobs queued the old way are deleted: their deliveries keep their `next_attempt_at`, and the periodic
`resume_sending` gives each webhook with a delivery due its new job."""
import django.db.models.deletion
from django.db import migrations, models

OLD_SEND_JOB = "webhooks.tasks.send"


def drop_old_send_jobs(apps, schema_editor):
    jobs = apps.get_model("django_tasks_database", "DBTaskResult")
    jobs.objects.filter(task_path=OLD_SEND_JOB, status="READY").delete()


class Migration(migrations.Migration):

    dependencies = [
        ('forum', '0012_redaction_and_event_note'),
        ('webhooks', '0001_initial'),
        ('django_tasks_database', '0021_conditional_partial_index_ordering'),
    ]

    operations = [
        migrations.CreateModel(
            name='CreationAttempt',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('at', models.DateTimeField()),
            ],
        ),
        migrations.AddField(
            model_name='webhook',
            name='send_job',
            field=models.UUIDField(blank=True, editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name='delivery',
            index=models.Index(fields=['webhook', 'next_attempt_at'], name='delivery_due_idx'),
        ),
        migrations.AddField(
            model_name='creationattempt',
            name='token',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='forum.token'),
        ),
        migrations.AddIndex(
            model_name='creationattempt',
            index=models.Index(fields=['token', 'at'], name='webhook_attempt_token_idx'),
        ),
        migrations.RunPython(drop_old_send_jobs, migrations.RunPython.noop),
    ]
