"""The claims console: staff read claims (filters by state and certainty, proofs as links); holders of
forum.moderate_thread verify and refute as the human through the services; a refusal is reported with the
API's reason and stores nothing."""
import pytest
from django.contrib.messages import get_messages

from dialectic.models import Claim
from forum.models import StateEvent
from tests.dialectic.conftest import act, assert_claim
from tests.forum.expect import nothing_stored

CHANGELIST = "/admin/dialectic/claim/"


@pytest.fixture
def supported(as_bob, thread, claim):
    assert act(as_bob, "attest", claim, thread, proof=[{"kind": "url", "ref": "https://example.org/a?b=1&c=2"},
                                                      {"kind": "commit", "ref": "abc1234"}]).status_code == 201
    return claim


def number(ref):
    return int(ref.removeprefix("cl_"))


def reports(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def run_action(client, kind, refs, **form):
    data = {"action": kind, "_selected_action": [number(ref) for ref in refs], **form}
    return client.post(CHANGELIST, data, follow=True)


def test_staff_list_claims_filtered_by_state_and_certainty(reader_console, as_alice, thread, supported):
    other = assert_claim(as_alice, thread, "A second, unsupported claim.")
    page = reader_console.get(CHANGELIST)
    assert page.status_code == 200
    assert f"cl_{number(supported)}" in page.content.decode() and f"cl_{number(other)}" in page.content.decode()
    supported_only = reader_console.get(CHANGELIST, {"certainty": "supported"}).content.decode()
    assert f"cl_{number(supported)}<" in supported_only and f"cl_{number(other)}<" not in supported_only
    unverified_only = reader_console.get(CHANGELIST, {"state": "unverified"}).content.decode()
    assert f"cl_{number(other)}<" in unverified_only and f"cl_{number(supported)}<" not in unverified_only


def test_the_claim_page_shows_url_proofs_as_links_and_others_as_text(reader_console, supported):
    page = reader_console.get(f"{CHANGELIST}{number(supported)}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<a href="https://example.org/a?b=1&amp;c=2" rel="noreferrer noopener"' in html
    assert "commit: <code>abc1234</code>" in html
    assert "Verify as the human" not in html  # a reader may not act


def test_a_moderator_verifies_a_supported_claim_as_the_human(console, supported):
    page = console.get(f"{CHANGELIST}{number(supported)}/change/")
    assert "Verify as the human" in page.content.decode()
    response = run_action(console, "verify", [supported], apply="1", body="Checked the sources.",
                          proof_kind="", proof_ref="", proof_note="")
    assert f"{supported}: verify posted; the claim is verified" in reports(response)
    event = StateEvent.objects.filter(claim_number=number(supported)).last()
    assert (event.label, event.to_state, event.actor, event.origin) == ("verify", "verified", "human:mia", "user")


def test_a_moderator_refutes_a_claim_with_a_proof_from_the_claim_page(console, supported):
    url = f"{CHANGELIST}{number(supported)}/act/refute/"
    assert console.get(url).status_code == 200
    response = console.post(url, {"apply": "1", "body": "The source says otherwise.", "proof_kind": "url",
                                  "proof_ref": "https://example.org/erratum", "proof_note": "see p. 2"},
                            follow=True)
    assert f"{supported}: refute posted; the claim is refuted" in reports(response)
    claim = Claim.objects.get(pk=number(supported))
    refutation = claim.acts.get(kind="refute")
    assert refutation.identity == "human:mia"
    assert refutation.proof == [{"kind": "url", "ref": "https://example.org/erratum", "note": "see p. 2"}]


@pytest.mark.parametrize("form, error", [
    ({"proof_kind": "", "proof_ref": ""}, "refute needs proof"),
    ({"proof_kind": "url", "proof_ref": "not a url"}, "proof[0].ref (url) must be an absolute http(s) URL"),
    ({"proof_kind": "hash", "proof_ref": "md5:00"}, "must be &lt;algo&gt;:&lt;hex&gt;"),
    ({"proof_kind": "url", "proof_ref": "https://example.org/", "body": "   "}, "body must be at least 1"),
])
def test_a_refutation_with_a_bad_proof_or_body_is_refused_on_the_form(console, supported, form, error):
    with nothing_stored():
        data = {"apply": "1", "body": "Wrong.", "proof_note": "", **form}
        response = run_action(console, "refute", [supported], **data)
        assert response.status_code == 200
        assert "invalid_body" in response.content.decode() and error in response.content.decode()


def test_an_illegal_act_is_reported_with_the_apis_reason(console, claim):
    with nothing_stored():
        response = run_action(console, "verify", [claim], apply="1", body="Sealed?", proof_kind="", proof_ref="",
                              proof_note="")
        assert any(report.startswith(f"{claim}: refused — invalid_transition") for report in reports(response))


def test_staff_without_the_moderate_permission_cannot_act(reader_console, supported):
    with nothing_stored():
        assert reader_console.get(f"{CHANGELIST}{number(supported)}/act/verify/").status_code == 403
        response = run_action(reader_console, "verify", [supported], apply="1", body="x", proof_kind="",
                              proof_ref="", proof_note="")
        assert "Verified" not in " ".join(reports(response))


def test_claims_cannot_be_added_changed_or_deleted_in_the_console(console, claim):
    assert console.get(f"{CHANGELIST}add/").status_code == 403
    assert console.post(f"{CHANGELIST}{number(claim)}/delete/", {"post": "yes"}).status_code == 403
    console.post(f"{CHANGELIST}{number(claim)}/change/", {"statement": "edited"})
    assert Claim.objects.get(pk=number(claim)).statement == "The sky is blue."


def test_a_private_rooms_claims_are_neither_listed_nor_shown_to_a_staff_user_who_may_not_see_the_room(
        reader_console, console, as_mod, mod):
    from forum.actors import Actor
    from rooms.services import room_create

    room_create(Actor.for_operator("tests"), {"slug": "leads", "name": "Leads", "visibility": "private"})
    hidden = number(assert_claim(as_mod, as_mod.ask("Among the leads", room="leads")))

    assert hidden not in [claim.pk for claim in reader_console.get(CHANGELIST).context["cl"].result_list]
    assert reader_console.get(f"{CHANGELIST}{hidden}/change/").status_code == 302  # the admin's "no such object"
    assert hidden in [claim.pk for claim in console.get(CHANGELIST).context["cl"].result_list]
