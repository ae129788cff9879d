"""§19, a line reads its own writes: every write of a line records its transaction on the line's token row
(forum.own_writes), which a replica must have replayed before it serves the line (parley_site.replicas;
the real standby's tests are tests/production/test_replicas.py). PostgreSQL only: SQLite has no replicas."""
import pytest
from django.db import connection

from forum.models import Token
from tests.evidence.conftest import upload


@pytest.fixture(autouse=True)
def postgresql_only(db):
    if connection.vendor != "postgresql":
        pytest.skip("transaction ids mark writes on PostgreSQL only; SQLite has no replicas")


def marked(token):
    return Token.objects.get(pk=token.pk).last_write_xid


def current_xid():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        return cursor.fetchone()[0]


def test_a_post_records_its_transaction_as_the_lines_last_write(as_alice, alice):
    assert marked(alice) is None
    as_alice.ask()
    assert marked(alice) == current_xid(), "the test's own transaction is the write's"


def test_a_refused_write_records_nothing(as_mallory, mallory):
    assert as_mallory.say("ask", "No write right").status_code == 403
    assert marked(mallory) is None


def test_an_artifact_upload_and_its_redaction_record_their_writes(as_alice, alice, as_mod, mod):
    artifact = upload(as_alice).json()["artifact"]["id"]
    assert marked(alice) is not None
    assert as_mod.post(f"/api/v1/artifacts/{artifact}/redact", {}).status_code == 200
    assert marked(mod) is not None


def test_a_webhook_created_records_its_write(as_alice, alice, settings):
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = settings.PARLEY_WEBHOOKS_ALLOW_HTTP = True
    settings.PARLEY_WEBHOOKS_ALLOW_PORTS = range(1, 65536)
    response = as_alice.post("/api/v1/webhooks", {"url": "http://127.0.0.1:9/hook", "topics": ["inbox"]})
    assert response.status_code == 201, response.json()
    assert marked(alice) is not None
