"""§3: tokens, the `parley_token` and `parley_demo` commands."""
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client

from forum import selectors
from forum.models import Message, Thread, Token
from forum.tokens import token_authenticate
from tests.conftest import Agent
from tests.forum.expect import accepted, nothing_stored, refused


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


class Bearer(Agent):
    def __init__(self, header):
        super().__init__(None)
        self.client.credentials(HTTP_AUTHORIZATION=header)


@pytest.mark.parametrize("header", [None, "Bearer ", "Bearer pt_unknown", "Basic YWxpY2U6cHc=", "pt_no_scheme"])
def test_a_missing_or_unknown_token_is_token_invalid(header, db):
    agent = Bearer(header) if header else Agent(None)
    with nothing_stored():
        response = agent.say("ask", "Hello?")
        refused(response, 401, "token_invalid")
    refused(agent.get("/api/v1/inbox"), 401, "token_invalid")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_revoked_token_is_token_invalid(bob, agent):
    run("parley_token", "revoke", "bob")
    with nothing_stored():
        refused(agent(bob).say("ask", "Hello?"), 401, "token_invalid")


def test_create_prints_the_secret_alone_on_its_last_line_and_stores_only_its_hash(db):
    output = run("parley_token", "create", "dora", "--rights", "read,write,lock", "--label", "Dora")
    secret = output.strip().splitlines()[-1]
    assert secret and " " not in secret
    token = Token.objects.get(handle="dora")
    assert (token.identity, token.label, token.rights) == ("ainotes:dora", "Dora", {"read", "write", "lock"})
    assert token.secret_hash == Token.hash_secret(secret) != secret
    assert secret not in str(list(Token.objects.values()))
    agent = Bearer(f"Bearer {secret}")
    assert accepted(agent.say("ask", "Dora here?"))["message"]["from"]["label"] == "KI · Dora"


def test_list_shows_tokens_without_their_secrets(alice, mallory):
    output = run("parley_token", "list")
    assert "ainotes:alice" in output and "ainotes:mallory" in output and "read" in output
    assert alice.secret not in output and mallory.secret not in output


def test_list_marks_a_revoked_token(bob):
    run("parley_token", "revoke", "bob")
    assert "revoked" in next(line for line in run("parley_token", "list").splitlines() if "ainotes:bob" in line)


@pytest.mark.parametrize("args", [("create", "eve", "--rights", "read,admin"), ("create", "eve", "--rights", ""),
                                  ("create", "alice"), ("create", "two words"), ("create", "realm:eve"),
                                  ("revoke", "nobody")])
def test_the_token_command_refuses_bad_input(args, alice):
    with pytest.raises(CommandError):
        run("parley_token", *args)


def test_the_demo_command_loads_a_conversation_once_and_prints_a_working_token(db):
    first = run("parley_demo")
    counts = (Thread.objects.count(), Message.objects.count())
    assert counts[0] >= 1
    second = run("parley_demo")
    assert (Thread.objects.count(), Message.objects.count()) == counts
    for output in (first, second):
        secret = next(line.strip() for line in output.splitlines() if line.strip().startswith("pt_"))
        assert "curl" in output
        agent = Bearer(f"Bearer {secret}")
        assert accepted(agent.get("/api/v1/threads"), 200)["items"]


def printed_login(output):
    """(login, password) as the demo command prints them."""
    found = dict(re.findall(r"^\s+(login|password):\s+(\S+)$", output, re.M))
    return found["login"], found["password"]


def test_the_demo_command_prints_a_moderator_login_for_the_console_on_the_demo_database(settings, db):
    settings.PARLEY_DEMO_DATABASE = connection.settings_dict["NAME"]  # the test database plays the demo one
    first, second = printed_login(run("parley_demo")), printed_login(run("parley_demo"))
    assert first[0] == second[0] and first[1] != second[1], "every run prints a fresh password"
    moderator = get_user_model().objects.get(username=second[0])
    assert moderator.is_staff and moderator.has_perm("forum.moderate_thread")
    assert moderator.has_perms(["forum.add_token", "forum.change_token"])  # it may let an OAuth host in
    console = Client()
    assert not console.login(username=first[0], password=first[1])
    assert console.login(username=second[0], password=second[1])
    assert console.get("/admin/").status_code == 200


def test_the_demo_command_creates_no_login_outside_the_demo_database(db):
    output = run("parley_demo")
    assert not get_user_model().objects.exists()
    assert "createsuperuser" in output and "password" not in output


def test_the_token_command_logs_its_writes_with_the_operator_as_actor(bob, caplog):
    with caplog.at_level("INFO", logger="parley.tokens"):
        run("parley_token", "create", "dora", "--rights", "read")
        run("parley_token", "revoke", "bob")
    assert [record.getMessage() for record in caplog.records if record.name == "parley.tokens"] == [
        "operator:parley_token created token ainotes:dora with rights read",
        "operator:parley_token revoked token ainotes:bob",
    ]


def test_reading_a_token_by_its_secret_writes_nothing(bob, django_assert_num_queries):
    Token.objects.filter(pk=bob.pk).update(last_used_at=None)
    with django_assert_num_queries(1):
        assert selectors.token_by_secret(bob.secret).pk == bob.pk
    assert Token.objects.get(pk=bob.pk).last_used_at is None


def test_authentication_records_a_tokens_last_use_once_a_minute_at_most(bob, django_assert_num_queries):
    Token.objects.filter(pk=bob.pk).update(last_used_at=None)
    with django_assert_num_queries(2):  # the read, then the write of last_used_at
        token_authenticate(bob.secret)
    used_at = Token.objects.get(pk=bob.pk).last_used_at
    with django_assert_num_queries(1):  # within LAST_USED_PRECISION: the read alone
        token_authenticate(bob.secret)
    assert used_at is not None and Token.objects.get(pk=bob.pk).last_used_at == used_at
