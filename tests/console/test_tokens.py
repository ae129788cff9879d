"""Token management: the secret is shown exactly once and never stored in clear; rights, label, revoke."""
import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.sessions.models import Session
from django.utils import timezone

from forum.models import Token
from tests.conftest import Agent
from webhooks.models import Webhook

TOKENS = "/admin/forum/token/"


def create(client, handle="dora", rights=("read", "write"), label="Dora the planner"):
    return client.post(f"{TOKENS}add/", {"handle": handle, "label": label, "rights": list(rights)})


def test_the_create_form_asks_for_handle_label_rights_and_an_optional_expiry(token_console):
    form = token_console.get(f"{TOKENS}add/").context["adminform"].form

    assert list(form.fields) == ["handle", "label", "rights", "expires_at"]
    assert not form.fields["expires_at"].required
    assert form.initial["rights"] == ["read", "write"]


def test_creating_a_token_shows_its_secret_exactly_once(token_console):
    response = create(token_console)

    secret = response.context["secret"]
    token = Token.objects.get(handle="dora")
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    assert secret in response.content.decode()
    assert (token.identity, token.label, token.rights) == ("ainotes:dora", "Dora the planner",
                                                           frozenset({"read", "write"}))
    assert token.secret_hash == Token.hash_secret(secret)
    for page in [TOKENS, f"{TOKENS}{token.pk}/change/"]:
        assert secret not in token_console.get(page).content.decode()


def test_the_new_secret_is_stored_nowhere_in_clear(token_console):
    secret = create(token_console).context["secret"]

    stored = [str(row.get_decoded()) for row in Session.objects.all()]
    stored += [f"{entry.object_repr} {entry.change_message}" for entry in LogEntry.objects.all()]
    stored += [str(vars(token)) for token in Token.objects.all()]
    assert stored and not any(secret in text for text in stored)


def test_the_new_secret_works_on_the_api(token_console, db):
    response = create(token_console)
    token = Token.objects.get(handle="dora")
    token.secret = response.context["secret"]

    assert Agent(token).ask("Dora's first question").startswith("th_")


def test_a_taken_handle_is_refused_with_a_form_error_and_creates_nothing(token_console, alice):
    response = create(token_console, handle="alice")

    assert response.status_code == 200
    assert "handle" in response.context["adminform"].form.errors
    assert Token.objects.count() == 1


def test_setting_rights_and_label_changes_only_those(token_console, alice):
    before = Token.objects.get(pk=alice.pk)

    response = token_console.post(f"{TOKENS}{alice.pk}/change/", {
        "label": "Alice the moderator", "rights": ["read", "write", "lock"]})

    after = Token.objects.get(pk=alice.pk)
    assert response.status_code == 302
    assert (after.label, after.rights) == ("Alice the moderator", frozenset({"read", "write", "lock"}))
    assert (after.identity, after.secret_hash, after.revoked_at) == (
        before.identity, before.secret_hash, before.revoked_at)


def test_a_new_right_takes_effect_on_the_next_request(token_console, as_alice, as_bob):
    ref = as_bob.ask("Bob's thread")
    assert as_alice.say("defer", "Later.", thread=ref).json()["error"]["reason"] == "thread_authority_missing"

    token_console.post(f"{TOKENS}{as_alice.token.pk}/change/", {"label": "alice", "rights": ["read", "write", "lock"]})

    response = as_alice.say("defer", "Later.", thread=ref)
    assert response.status_code == 201 and response.json()["message"]["from"]["label"] == "KI · alice"


def test_revoking_a_token_makes_its_requests_token_invalid(token_console, as_alice):
    response = token_console.post(TOKENS, {"action": "revoke", "_selected_action": [as_alice.token.pk]},
                                  follow=True)

    assert [str(message) for message in response.context["messages"]] == [
        "ainotes:alice: revoked; its requests now get token_invalid"]
    refused = as_alice.get("/api/v1/threads")
    assert (refused.status_code, refused.json()["error"]["reason"]) == (401, "token_invalid")


def test_revoking_a_revoked_token_says_so_and_keeps_its_revocation_time(token_console, alice):
    token_console.post(TOKENS, {"action": "revoke", "_selected_action": [alice.pk]}, follow=True)
    revoked_at = Token.objects.get(pk=alice.pk).revoked_at

    response = token_console.post(TOKENS, {"action": "revoke", "_selected_action": [alice.pk]}, follow=True)

    assert [str(message) for message in response.context["messages"]] == ["ainotes:alice: already revoked"]
    assert Token.objects.get(pk=alice.pk).revoked_at == revoked_at


def test_the_list_shows_identity_rights_status_last_use_and_write_count(token_console, as_alice, mod):
    as_alice.ask("One")
    as_alice.ask("Two")

    html = token_console.get(TOKENS).content.decode()

    assert '<td class="field-rights_column">lock, read, write</td>' in html
    assert '<td class="field-write_count">2</td>' in html
    assert "ainotes:alice" in html and "ainotes:mod" in html
    assert "active" in html


@pytest.mark.parametrize("method, path", [("get", "add/"), ("post", "add/"), ("get", "{pk}/delete/")])
def test_staff_without_token_permissions_cannot_manage_tokens(reader_console, alice, method, path):
    response = getattr(reader_console, method)(TOKENS + path.format(pk=alice.pk), {"handle": "eve"})

    assert response.status_code == 403
    assert Token.objects.count() == 1


def test_tokens_are_never_deleted(admin_client, alice):
    response = admin_client.post(f"{TOKENS}{alice.pk}/delete/", {"post": "yes"})

    assert response.status_code == 403
    assert Token.objects.filter(pk=alice.pk).exists()


def test_every_token_write_in_the_console_is_logged_with_the_staff_user_as_actor(token_console, alice, caplog):
    with caplog.at_level("INFO", logger="parley.tokens"):
        create(token_console)
        token_console.post(f"{TOKENS}{alice.pk}/change/", {"label": "Alice", "rights": ["read"]})
        token_console.post(TOKENS, {"action": "revoke", "_selected_action": [alice.pk]})

    assert [record.getMessage() for record in caplog.records if record.name == "parley.tokens"] == [
        "human:tess created token ainotes:dora with rights read,write",
        "human:tess set token ainotes:alice to rights read",
        "human:tess revoked token ainotes:alice",
    ]


def rotate(client, token, **answer):
    """The "Rotate secret" action: the grace page, then (with `answer`) the rotation."""
    data = {"action": "rotate", "_selected_action": [token.pk]}
    if answer:
        data = {**data, "apply": "Rotate", **answer}
    else:
        data["index"] = 0
    return client.post(TOKENS, data)


def token_log(token):
    return [entry.get_change_message() for entry in
            LogEntry.objects.filter(object_id=str(token.pk)).order_by("action_time", "pk")]


def test_admin_rotate_asks_for_the_grace_period_first_and_changes_nothing_yet(token_console, alice):
    response = rotate(token_console, alice)

    assert response.status_code == 200 and "grace" in response.context["form"].fields
    assert Token.objects.get(pk=alice.pk).secret_hash == Token.hash_secret(alice.secret)
    assert token_log(alice) == []


def test_admin_rotate_shows_the_new_secret_once_and_writes_a_log_entry(token_console, alice):
    response = rotate(token_console, alice, grace="0")

    [rotation] = response.context["rotated"]
    secret = rotation.secret
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    assert secret in response.content.decode()
    assert Token.objects.get(pk=alice.pk).secret_hash == Token.hash_secret(secret)
    assert token_log(alice) == ["Rotated the secret; the old one stopped at once."]
    stored = [str(row.get_decoded()) for row in Session.objects.all()]
    stored += [f"{entry.object_repr} {entry.change_message}" for entry in LogEntry.objects.all()]
    assert not any(secret in text for text in stored)
    for page in [TOKENS, f"{TOKENS}{alice.pk}/change/", f"{TOKENS}{alice.pk}/history/"]:
        assert secret not in token_console.get(page).content.decode()
    alice.secret = secret
    assert Agent(alice).ask("With the new secret").startswith("th_")


def test_admin_rotate_with_grace_keeps_the_old_secret_until_then_and_logs_the_end(token_console, as_alice):
    alice = as_alice.token
    rotate(token_console, alice, grace="600")

    ends_at = Token.objects.get(pk=alice.pk).previous_secret_ends_at
    assert token_log(alice) == [f"Rotated the secret; the old one works until {ends_at.isoformat()}."]
    assert as_alice.get("/api/v1/threads").status_code == 200


def test_admin_rotate_refuses_a_grace_out_of_range_and_rotates_nothing(token_console, alice):
    response = rotate(token_console, alice, grace="-5")

    assert response.status_code == 200 and "grace" in response.context["form"].errors
    assert Token.objects.get(pk=alice.pk).secret_hash == Token.hash_secret(alice.secret)
    assert token_log(alice) == []


def test_each_admin_token_change_writes_a_log_entry_saying_what_changed(token_console, alice):
    create(token_console, handle="dora", rights=("read",), label="Dora")
    dora = Token.objects.get(handle="dora")
    change = f"{TOKENS}{alice.pk}/change/"
    token_console.post(change, {"label": "Alice", "rights": ["read", "lock"]})
    token_console.post(change, {"label": "Alice", "rights": ["read", "lock"],
                                "expires_at_0": "2031-01-02", "expires_at_1": "03:04:05"})
    token_console.post(change, {"label": "Alice", "rights": ["read", "lock"]})
    token_console.post(TOKENS, {"action": "revoke", "_selected_action": [alice.pk]})

    assert Token.objects.get(pk=alice.pk).expires_at is None
    assert token_log(dora) == ["Created with rights read, label 'Dora', expiring never."]
    assert token_log(alice) == [
        "Changed label to 'Alice'; rights to lock,read.",
        "Changed expiry to 2031-01-02T03:04:05+00:00.",
        "Changed expiry to never.",
        "Revoked.",
    ]
    assert {entry.user.username for entry in LogEntry.objects.all()} == {"tess"}


def test_an_expiry_set_in_the_admin_makes_the_token_token_invalid(token_console, as_alice):
    token_console.post(f"{TOKENS}{as_alice.token.pk}/change/", {
        "label": "alice", "rights": ["read", "write"], "expires_at_0": "2020-01-01", "expires_at_1": "00:00:00"})

    refused = as_alice.get("/api/v1/threads")
    assert (refused.status_code, refused.json()["error"]["reason"]) == (401, "token_invalid")
    assert "expired" in token_console.get(TOKENS).content.decode()


def webhook_of(token, url="https://hooks.example.com/parley?key=receiver-credential"):
    return Webhook.objects.create(token=token, url=url, sealed_secret="sealed", created_at=timezone.now())


def test_admin_rotate_lists_each_tokens_webhooks_and_offers_to_delete_them(token_console, alice, bob):
    hook = webhook_of(alice)
    response = rotate(token_console, alice)

    page = response.content.decode()
    assert "drop_webhooks" in response.context["form"].fields
    assert f"its webhooks: wh_{hook.pk} https://hooks.example.com/parley" in page
    assert "receiver-credential" not in page


def test_admin_rotate_with_the_choice_deletes_the_webhooks_in_the_same_step(token_console, alice, bob):
    hooks, kept = [webhook_of(alice), webhook_of(alice)], webhook_of(bob)
    response = rotate(token_console, alice, grace="0", drop_webhooks="on")

    assert f"Deleted its webhooks: wh_{hooks[0].pk} https://hooks.example.com/parley" in response.content.decode()
    assert list(Webhook.objects.values_list("pk", flat=True)) == [kept.pk]
    assert token_log(alice) == ["Rotated the secret; the old one stopped at once. Deleted its webhooks (2)."]


def test_admin_rotate_without_the_choice_keeps_the_webhooks_and_says_so(token_console, alice):
    hook = webhook_of(alice)
    response = rotate(token_console, alice, grace="0")

    assert "It keeps its webhooks, which outlive the old secret" in response.content.decode()
    assert list(Webhook.objects.values_list("pk", flat=True)) == [hook.pk]
