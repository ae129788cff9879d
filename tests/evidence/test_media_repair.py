"""Migration 0004 (issue 22): stored media types that could never be served as a header become
application/octet-stream; every other stays as stored."""
from importlib import import_module

from django.apps import apps
from django.utils import timezone

from evidence.models import Artifact
from tests.conftest import Agent
from tests.evidence.conftest import artifact_id

repair = import_module("evidence.migrations.0004_repair_unservable_media_types").repair_media_types


def stored_with(media_type, data):
    """A row as an upload before the fix could leave it (the raw ORM: today's shape refuses it)."""
    return Artifact.objects.create(
        id=artifact_id(data), size=len(data), media_type=media_type, storage_name="sha256/00/none",
        uploaded_identity="alice", uploaded_kind="llm", created_at=timezone.now())


def test_the_repair_makes_unservable_media_types_application_octet_stream(db):
    broken = [stored_with(f'text/plain; note="a{byte}b"', byte.encode()) for byte in ("\r", "\n", "\x7f", "\u00e9")]
    kept = stored_with('text/plain; note="a b\tc"', b"kept")
    repair(apps, None)
    assert {row.pk: row.media_type for row in Artifact.objects.all()} == {
        **{row.pk: "application/octet-stream" for row in broken}, kept.pk: kept.media_type}


def test_a_repaired_artifact_downloads_again(as_alice, bob):
    artifact = as_alice.client.post("/api/v1/artifacts", b"log", content_type="text/plain").json()["artifact"]
    Artifact.objects.filter(pk=artifact["id"]).update(media_type='text/plain; note="a\r\nX-Evil: 1"')
    repair(apps, None)
    download = Agent(bob).get(f"/api/v1/artifacts/{artifact['id']}")
    assert (download.status_code, download["Content-Type"], b"".join(download.streaming_content)) == \
        (200, "application/octet-stream", b"log")
