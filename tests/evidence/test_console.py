"""Artifacts in the console (§18): a claim's page shows the artifacts its proofs name, text inline and
escaped, anything else as a download; the human redacts an artifact from its page or the list, through the
one service; a staff reader cannot."""
from django.contrib.admin.utils import quote
from django.contrib.messages import get_messages

from evidence.models import Artifact
from tests.evidence.conftest import upload

SCRIPTED = b"<script>document.title = 'ran';</script><b>bold</b>\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def claim_with(as_alice, *artifacts):
    thread = as_alice.ask("What does the log say?")
    proofs = [{"kind": "artifact", "ref": artifact} for artifact in artifacts]
    response = as_alice.say("assert", "The log shows it.", thread=thread, proof=proofs)
    assert response.status_code == 201, response.json()
    return int(response.json()["claim"]["id"].removeprefix("cl_"))


def page_of(artifact):
    return f"/admin/evidence/artifact/{quote(artifact)}/change/"


def redact_url(artifact):
    return f"/admin/evidence/artifact/{quote(artifact)}/redact/"


def test_a_claims_page_shows_a_text_artifact_inline_and_escaped(console, as_alice):
    text = upload(as_alice, SCRIPTED, "text/html").json()["artifact"]["id"]
    page = console.get(f"/admin/dialectic/claim/{claim_with(as_alice, text)}/change/").content.decode()
    assert "&lt;script&gt;document.title = &#x27;ran&#x27;;&lt;/script&gt;" in page
    assert "<script>document.title" not in page
    assert f'<a href="/api/v1/artifacts/{text}" download>download</a>' in page


def test_a_claims_page_shows_any_other_artifact_as_a_download_only(console, as_alice):
    image = upload(as_alice, PNG, "image/png").json()["artifact"]["id"]
    page = console.get(f"/admin/dialectic/claim/{claim_with(as_alice, image)}/change/").content.decode()
    assert f'<a href="/api/v1/artifacts/{image}" download>download</a>' in page
    assert '<pre class="artifact-text">' not in page


def test_a_claims_page_says_when_an_artifact_was_redacted(console, as_alice, as_mod):
    text = upload(as_alice).json()["artifact"]["id"]
    claim = claim_with(as_alice, text)
    as_mod.post(f"/api/v1/artifacts/{text}/redact")
    page = console.get(f"/admin/dialectic/claim/{claim}/change/").content.decode()
    assert "redacted by ainotes:mod" in page
    assert "download" not in page.split(text, 1)[1].split("</li>", 1)[0]


def test_the_human_redacts_an_artifact_from_its_page(console, stored):
    assert f'action="{redact_url(stored)}"'.encode() in console.get(page_of(stored)).content
    response = console.post(redact_url(stored), {"reason": "a leaked secret"}, follow=True)
    assert response.status_code == 200
    row = Artifact.objects.get(pk=stored)
    assert (row.redacted_by, row.redacted_reason) == ("human:mia", "a leaked secret")
    assert any("redacted" in str(message) for message in get_messages(response.wsgi_request))


def test_the_human_redacts_artifacts_from_the_list(console, stored):
    console.post("/admin/evidence/artifact/", {"action": "redact", "_selected_action": [stored]})
    assert Artifact.objects.get(pk=stored).redacted_by == "human:mia"


def test_redacting_twice_from_the_console_reports_the_refusal(console, stored):
    console.post(redact_url(stored))
    response = console.post(redact_url(stored), follow=True)
    assert any("invalid_transition" in str(message) for message in get_messages(response.wsgi_request))


def test_a_staff_reader_reads_an_artifact_page_but_cannot_redact(reader_console, stored):
    page = reader_console.get(page_of(stored))
    assert page.status_code == 200
    assert b"Redact as the human" not in page.content
    assert reader_console.post(redact_url(stored)).status_code == 403
    assert Artifact.objects.get(pk=stored).redacted_at is None

