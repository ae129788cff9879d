"""§3: a token's lifecycle. Rotation gives the same line a new secret (the old one stops at once, or after a
grace period, and not after); an optional expiry makes a token `token_invalid` on every door."""
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from forum.actors import Actor
from forum.models import Thread, Token
from forum.tokens import MAX_GRACE_SECONDS, token_create, token_revoke, token_rotate, token_update
from parley_site.errors import ParleyError
from tests.conftest import Agent
from tests.forum.expect import accepted, nothing_stored, refused
from tests.mcp_bridge.conftest import McpAgent, refusal

OPERATOR = Actor.for_operator("tests")


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def rotated(token, grace=0):
    """The token as it stands after a rotation, carrying its new secret (as the fixtures' tokens do)."""
    rotation = token_rotate(OPERATOR, token.pk, grace)
    rotation.token.secret = rotation.secret
    return rotation.token


def with_old_secret(token):
    return Agent(token)


def test_rotate_keeps_identity_threads_authority_and_rate_window(as_alice, alice):
    thread = as_alice.ask("Alice's question")
    before = Token.objects.get(pk=alice.pk)

    after = rotated(alice)

    assert (after.pk, after.identity, after.label, after.rights) == (
        before.pk, before.identity, before.label, before.rights)
    assert (after.write_count, after.recent_writes) == (before.write_count, before.recent_writes)
    assert after.secret_hash == Token.hash_secret(after.secret) != before.secret_hash
    assert accepted(Agent(after).say("ask", "Still me?"))["message"]["from"]["identity"] == "ainotes:alice"
    assert Thread.objects.get(pk=int(thread.removeprefix("th_"))).creator_identity == "ainotes:alice"
    now_stored = Token.objects.get(pk=alice.pk)
    assert now_stored.write_count == before.write_count + 1
    assert now_stored.recent_writes[:-1] == before.recent_writes


def test_after_a_rotation_without_grace_the_old_secret_is_refused_at_once(as_alice, alice):
    thread = as_alice.ask("Before the rotation")
    rotated(alice)

    with nothing_stored():
        refused(with_old_secret(alice).say("note", "Old secret.", thread=thread), 401, "token_invalid")
        refused(with_old_secret(alice).get("/api/v1/threads"), 401, "token_invalid")


def test_within_the_grace_the_old_secret_is_accepted_and_after_it_refused(alice, time_machine):
    now = timezone.now()
    time_machine.move_to(now, tick=False)
    new = rotated(alice, grace=600)

    time_machine.move_to(now + timedelta(seconds=599), tick=False)
    accepted(with_old_secret(alice).get("/api/v1/threads"), 200)
    accepted(Agent(new).get("/api/v1/threads"), 200)

    time_machine.move_to(now + timedelta(seconds=600), tick=False)
    with nothing_stored():
        refused(with_old_secret(alice).say("ask", "Too late."), 401, "token_invalid")
    accepted(Agent(new).get("/api/v1/threads"), 200)


def test_a_second_rotation_ends_the_previous_secrets_grace_at_once(alice):
    second = rotated(alice, grace=600)
    third = rotated(second, grace=600)

    refused(with_old_secret(alice).get("/api/v1/threads"), 401, "token_invalid")
    accepted(Agent(second).get("/api/v1/threads"), 200)
    accepted(Agent(third).get("/api/v1/threads"), 200)


def test_the_old_secret_of_a_revoked_token_is_refused_within_the_grace(alice):
    rotated(alice, grace=600)
    token_revoke(OPERATOR, alice.pk)

    refused(with_old_secret(alice).get("/api/v1/threads"), 401, "token_invalid")


@pytest.mark.parametrize("grace", [-1, MAX_GRACE_SECONDS + 1])
def test_a_rotation_with_a_grace_out_of_range_is_invalid_body_and_changes_nothing(alice, grace):
    with pytest.raises(ParleyError) as refused_rotation:
        token_rotate(OPERATOR, alice.pk, grace)
    assert (refused_rotation.value.reason, refused_rotation.value.detail) == ("invalid_body", {"field": "grace"})
    assert Token.objects.get(pk=alice.pk).secret_hash == Token.hash_secret(alice.secret)


def test_a_revoked_token_cannot_be_rotated_invalid_transition(alice):
    token_revoke(OPERATOR, alice.pk)
    with pytest.raises(ParleyError) as refused_rotation:
        token_rotate(OPERATOR, alice.pk)
    assert refused_rotation.value.reason == "invalid_transition"
    assert Token.objects.get(pk=alice.pk).secret_hash == Token.hash_secret(alice.secret)


@pytest.mark.parametrize("handle", ["two words", "ünïcode", "dot.ted", ""])
def test_a_token_whose_handle_is_no_slug_is_invalid_body_and_is_not_created(db, handle):
    with pytest.raises(ParleyError) as refused_creation:
        token_create(OPERATOR, handle, {"read"})
    assert (refused_creation.value.reason, refused_creation.value.detail) == ("invalid_body", {"field": "handle"})
    assert not Token.objects.exists()


def expire(token, at):
    token_update(OPERATOR, token.pk, token.rights, token.label, expires_at=at)


def test_a_token_works_until_its_expiry_and_is_token_invalid_on_rest_from_then_on(as_alice, alice, time_machine):
    now = timezone.now()
    time_machine.move_to(now, tick=False)
    thread = as_alice.ask("Before the expiry")
    expire(alice, now + timedelta(hours=1))

    time_machine.move_to(now + timedelta(minutes=59), tick=False)
    accepted(as_alice.say("ask", "Still valid?"))

    time_machine.move_to(now + timedelta(hours=1), tick=False)
    with nothing_stored():
        refused(as_alice.say("note", "Expired.", thread=thread), 401, "token_invalid")
        refused(as_alice.get("/api/v1/inbox"), 401, "token_invalid")


def test_an_expired_token_is_token_invalid_on_mcp(alice):
    expire(alice, timezone.now() - timedelta(seconds=1))

    with nothing_stored():
        error = refusal(McpAgent(alice).call("post", {"kind": "ask", "body": "Expired?"}))
    assert (error["reason"], error["status"]) == ("token_invalid", 401)
    assert refusal(McpAgent(alice).call("whoami"))["reason"] == "token_invalid"


def test_an_expiry_set_back_to_never_makes_the_token_work_again(as_alice, alice):
    expire(alice, timezone.now() - timedelta(seconds=1))
    refused(as_alice.get("/api/v1/threads"), 401, "token_invalid")

    expire(alice, None)

    accepted(as_alice.get("/api/v1/threads"), 200)


def test_rotate_prints_the_new_secret_alone_on_its_last_line_and_stores_only_its_hash(alice):
    output = run("parley_token", "rotate", "alice")

    secret = output.strip().splitlines()[-1]
    assert secret.startswith("pt_") and " " not in secret and secret != alice.secret
    assert "rotated ainotes:alice; the old secret stopped at once" in output
    token = Token.objects.get(pk=alice.pk)
    assert token.secret_hash == Token.hash_secret(secret) and token.previous_secret_hash is None
    assert secret not in str(list(Token.objects.values()))


def test_rotate_with_grace_says_until_when_the_old_secret_works(alice):
    output = run("parley_token", "rotate", "alice", "--grace", "300")

    token = Token.objects.get(pk=alice.pk)
    assert f"the old secret works until {token.previous_secret_ends_at.isoformat()}" in output
    assert token.previous_secret_hash == Token.hash_secret(alice.secret)
    assert 299 <= (token.previous_secret_ends_at - timezone.now()).total_seconds() <= 300


def test_create_with_expires_in_sets_the_expiry_and_says_so(db):
    output = run("parley_token", "create", "dora", "--expires-in", "3600")

    token = Token.objects.get(handle="dora")
    assert 3599 <= (token.expires_at - timezone.now()).total_seconds() <= 3600
    assert f"expiring {token.expires_at.isoformat()}" in output
    assert token.secret_hash == Token.hash_secret(output.strip().splitlines()[-1])


def test_list_marks_an_expired_token(alice, bob):
    expire(alice, timezone.now() - timedelta(seconds=1))

    lines = run("parley_token", "list").splitlines()

    assert "\texpired\t" in next(line for line in lines if "ainotes:alice" in line)
    assert "\tactive\t" in next(line for line in lines if "ainotes:bob" in line)


@pytest.mark.parametrize("args", [("rotate", "nobody"), ("rotate", "alice", "--grace", "-1"),
                                  ("rotate", "alice", "--grace", str(MAX_GRACE_SECONDS + 1)),
                                  ("rotate", "alice", "--grace", "soon"), ("create", "eve", "--expires-in", "0"),
                                  ("create", "eve", "--expires-in", "tomorrow")])
def test_the_lifecycle_commands_refuse_bad_input_and_change_nothing(args, alice):
    with pytest.raises(CommandError):
        run("parley_token", *args)
    assert list(Token.objects.values_list("handle", "secret_hash")) == [("alice", Token.hash_secret(alice.secret))]


def test_rotating_a_revoked_token_is_a_command_error(alice):
    run("parley_token", "revoke", "alice")
    with pytest.raises(CommandError, match="revoked"):
        run("parley_token", "rotate", "alice")
