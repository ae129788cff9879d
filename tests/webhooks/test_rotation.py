"""A rotation after a leak (§3, §17): a webhook outlives the secret it was created with, so rotating tells
which webhooks the token has, and drops them in the same step when asked (`--drop-webhooks`; the console's
choice is tested in tests/console/test_tokens.py)."""
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from forum.actors import Actor
from forum.models import Token
from forum.tokens import token_revoke, token_rotate
from webhooks.models import Delivery, Webhook

OPERATOR = Actor.for_operator("tests")


def rotate(*args):
    out = StringIO()
    call_command("parley_token", "rotate", *args, stdout=out)
    return out.getvalue().splitlines()


def test_rotating_tells_which_webhooks_the_token_has_without_their_query(alice, receiver, make_webhook):
    hook = make_webhook(alice, f"{receiver().url}?key=receiver-credential")
    lines = rotate("alice")
    assert lines[-1].startswith("pt_") and lines[-1] not in "\n".join(lines[:-1])  # alone on the last line
    [told] = [line for line in lines if "keeps its webhooks" in line]
    assert told.endswith(f"{hook['id']} {hook['url'].split('?')[0]}")
    assert "--drop-webhooks" in told
    assert "receiver-credential" not in "\n".join(lines)
    assert Webhook.objects.filter(token=alice).count() == 1


def test_rotating_a_token_without_webhooks_says_it_has_none(alice):
    assert "ainotes:alice has no webhooks" in rotate("alice")


def test_rotating_with_drop_webhooks_deletes_them_and_their_deliveries_in_the_same_step(
        alice, bob, as_bob, receiver, make_webhook, run_fan_outs):
    url = receiver().url
    hooks = [make_webhook(alice, url), make_webhook(alice, url)]
    kept = make_webhook(bob, url)
    as_bob.ask("Queued for alice's webhooks")
    run_fan_outs()
    assert Delivery.objects.filter(webhook__token=alice).exists()

    lines = rotate("alice", "--drop-webhooks")

    assert f"dropped the webhooks of ainotes:alice: {hooks[0]['id']} {url}, {hooks[1]['id']} {url}" in lines
    assert not Webhook.objects.filter(token=alice).exists()
    assert not Delivery.objects.filter(webhook__token=alice).exists()
    assert list(Webhook.objects.values_list("pk", flat=True)) == [int(kept["id"].removeprefix("wh_"))]
    assert Token.objects.get(pk=alice.pk).secret_hash == Token.hash_secret(lines[-1])


def test_a_webhook_made_with_a_leaked_secret_delivers_nothing_after_a_rotation_that_drops_it(
        alice, as_bob, receiver, make_webhook, run_jobs):
    hook = receiver()
    make_webhook(alice, hook.url)  # by whoever holds alice's leaked secret
    token_rotate(OPERATOR, alice.pk, drop=("webhooks",))
    as_bob.ask("Meant for alice alone")
    run_jobs()
    assert hook.requests == []


def test_a_refused_rotation_drops_no_webhook(alice, receiver, make_webhook):
    make_webhook(alice, receiver().url)
    token_revoke(OPERATOR, alice.pk)
    secret_hash = Token.objects.get(pk=alice.pk).secret_hash
    with pytest.raises(CommandError, match="revoked"):
        rotate("alice", "--drop-webhooks")
    assert Webhook.objects.filter(token=alice).count() == 1
    assert Token.objects.get(pk=alice.pk).secret_hash == secret_hash
