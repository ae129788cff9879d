"""The evidence profile's console parts speak German or English, as the browser asks (Accept-Language);
the protocol's words in them (kinds, states, reasons, artifact ids) stay as the API says them."""
from types import SimpleNamespace

import pytest
from django.contrib.messages import get_messages

from tests.console.test_german import html_of, speaking
from tests.dialectic.conftest import act, assert_claim
from tests.evidence.conftest import upload
from tests.evidence.test_console import page_of, redact_url


@pytest.fixture(params=["de", "en"])
def language(request):
    return request.param


@pytest.fixture
def world(console, stored, trusted_acme, realm_key, language):
    return SimpleNamespace(moderator=speaking(console, language), artifact=stored)


# Each page: how the moderator reaches it in `world`, then a string it shows in German and the same one in
# English.
def admin_index(world):
    return world.moderator.get("/admin/")


def artifact_list(world):
    return world.moderator.get("/admin/evidence/artifact/")


def artifact_page(world):
    return world.moderator.get(page_of(world.artifact))


def trusted_realms(world):
    return world.moderator.get("/admin/evidence/trustedrealm/")


def trusted_realm_form(world):
    return world.moderator.get("/admin/evidence/trustedrealm/add/")


def realm_keys(world):
    return world.moderator.get("/admin/evidence/realmkey/")


PAGES = {
    admin_index: ("Evidenz: Artefakte, Attestierungen, Quorum", "Evidence: artifacts, attestations, quorum"),
    artifact_list: ("Ausgewählte Artefakte schwärzen (ihre Bytes löschen)",
                    "Redact the selected artifacts (erase their bytes)"),
    artifact_page: ("Als Mensch schwärzen (die Bytes löschen)", "Redact as the human (erase the bytes)"),
    trusted_realms: ("Schlüssel-IDs", "Key ids"),
    trusted_realm_form: ("seine Ed25519-Schlüssel, von denen jeder diesen Realm nennt",
                         "its Ed25519 keys, each naming this realm"),
    realm_keys: ('<td class="field-status">signiert</td>', '<td class="field-status">signing</td>'),
}


@pytest.mark.parametrize("page", PAGES, ids=[page.__name__ for page in PAGES])
def test_each_evidence_console_page_speaks_the_language_the_browser_asks_for(world, language, page):
    german, english = PAGES[page]

    html = html_of(page(world))

    shown, not_shown = (german, english) if language == "de" else (english, german)
    assert shown in html and not_shown not in html


def test_a_claims_page_tells_of_an_attestation_in_german_but_names_its_state_as_the_api_does(
        console, as_alice, as_bob, trusted_acme):
    attestation = upload(as_bob, trusted_acme.sign(), content_type="application/json").json()["artifact"]["id"]
    thread = as_alice.ask("Is the sky blue, as acme says?")
    claim = assert_claim(as_alice, thread)
    assert act(as_bob, "attest", claim, thread, proof=[{"kind": "artifact", "ref": attestation}]).status_code == 201

    html = html_of(speaking(console, "de").get(f"/admin/dialectic/claim/{claim.removeprefix('cl_')}/change/"))

    assert "Realm <strong>acme</strong> befand cl_7 als verified" in html
    assert "Signatur beim Hochladen geprüft; jetzt vertrauenswürdig" in html
    assert f'<a href="/api/v1/artifacts/{attestation}" download>herunterladen</a>' in html


def test_a_moderators_redaction_report_is_in_their_language_and_a_refusal_keeps_the_apis_reason(console, stored):
    german = speaking(console, "de")
    redacted = german.post(redact_url(stored), follow=True)
    refused = german.post(redact_url(stored), follow=True)

    [done] = [message.message for message in get_messages(redacted.wsgi_request)]
    [again] = [message.message for message in get_messages(refused.wsgi_request)]
    assert done == f"{stored}: geschwärzt; seine Bytes sind gelöscht"
    assert again.startswith(f"{stored}: abgelehnt — invalid_transition: ")
