"""Parley v1 §17, webhooks managed over REST: create (the secret shown once), list, delete, and each refusal,
which stores nothing."""
import logging
import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from standardwebhooks.webhooks import Webhook as Verifier

from forum.actors import Actor
from forum.models import Token
from forum.tokens import token_revoke
from parley_site.sealing import unseal
from tests.forum.expect import accepted, refused
from tests.webhooks.conftest import nothing_stored_here
from webhooks.models import Webhook

HOOK = "https://hooks.example.com/parley"


@pytest.fixture(autouse=True)
def public_names(monkeypatch):
    """hooks.example.com resolves to a public address; every other name as the system resolves it."""
    import socket

    real = socket.getaddrinfo

    def resolve(host, port, *args, **kwargs):
        if host == "hooks.example.com":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port))]
        return real(host, port, *args, **kwargs)
    monkeypatch.setattr(socket, "getaddrinfo", resolve)


def create(agent, url=HOOK, topics=("inbox",), **headers):
    return agent.post("/api/v1/webhooks", {"url": url, "topics": list(topics)}, **headers)


def test_creating_a_webhook_answers_201_with_its_secret_once(as_alice):
    created = accepted(create(as_alice, topics=["inbox"]))
    assert created["id"].startswith("wh_") and created["url"] == HOOK and created["topics"] == ["inbox"]
    assert created["secret"].startswith("whsec_")
    Verifier(created["secret"])  # a Standard Webhooks secret
    listed = accepted(as_alice.get("/api/v1/webhooks"), 200)["items"]
    assert [item["id"] for item in listed] == [created["id"]]
    assert "secret" not in listed[0] and listed[0]["disabled_at"] is None


def test_the_signing_secret_is_stored_sealed_not_in_clear(as_alice):
    created = accepted(create(as_alice))
    row = Webhook.objects.get()
    assert created["secret"] not in str(list(Webhook.objects.values()))
    assert unseal(row.sealed_secret).decode() == created["secret"]


def test_an_idempotent_replay_answers_the_same_webhook_without_its_secret(as_alice):
    first = accepted(create(as_alice, HTTP_IDEMPOTENCY_KEY="hook-1"))
    replay = accepted(create(as_alice, HTTP_IDEMPOTENCY_KEY="hook-1"))
    assert "secret" in first and "secret" not in replay
    assert replay == {name: value for name, value in first.items() if name != "secret"}
    assert Webhook.objects.count() == 1


def test_a_thread_topic_names_a_thread_that_exists(as_alice):
    thread = as_alice.ask()
    assert accepted(create(as_alice, topics=[thread, "inbox"]))["topics"] == [thread, "inbox"]


def test_a_topic_on_an_unknown_thread_is_not_found(as_alice):
    with nothing_stored_here():
        refused(create(as_alice, topics=["th_999"]), 404, "not_found", object="thread")


@pytest.mark.parametrize("topics, field", [
    ([], "topics"), (["everything"], "topics[0]"), (["inbox", "th_0"], "topics[1]"), (["inbox", "inbox"], "topics[1]"),
    ("inbox", "topics"),
])
def test_topics_are_a_non_empty_list_of_inbox_or_thread_ids_each_once(as_alice, topics, field):
    with nothing_stored_here():
        refused(as_alice.post("/api/v1/webhooks", {"url": HOOK, "topics": topics}), 400, "invalid_body", field=field)


def test_an_unknown_field_is_invalid_body(as_alice):
    with nothing_stored_here():
        refused(as_alice.post("/api/v1/webhooks", {"url": HOOK, "topics": ["inbox"], "secret": "x"}), 400,
                "invalid_body", field="secret")


@pytest.mark.parametrize("url", [
    "http://hooks.example.com/parley",  # not https
    "ftp://hooks.example.com/parley",
    "https:///no-host",
    "https://user:pw@hooks.example.com/parley",
    "https://hooks.example.com:99999/parley",
    "https://localhost/parley",  # a name that resolves to loopback
    "https://127.0.0.1/parley",
    "https://2130706433/parley",  # 127.0.0.1 as one number
    "https://10.1.2.3/parley",
    "https://100.64.0.1/parley",  # carrier-grade NAT
    "https://169.254.169.254/latest/meta-data",  # cloud metadata
    "https://[fd00:ec2::254]/",  # cloud metadata over IPv6
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
    "https://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "https://0.0.0.0/",
    "https://no-such-host.invalid/",
    "https://[::1/",  # an unbalanced IPv6 bracket
    "https://hooks.example.com:25/parley",  # a port that is not https's
    "https://hooks.example.com:6379/parley",
    "https://xn--/parley",  # no IDNA form
    "https://192.0.0.9/",  # special-purpose blocks Python's is_global lets through
    "https://192.88.99.1/",
    "https://[3fff::1]/",
])
def test_a_url_must_be_https_on_a_public_address(as_alice, url):
    with nothing_stored_here():
        refused(create(as_alice, url=url), 400, "invalid_body", field="url")


def test_the_operator_may_allow_http_and_private_addresses(as_alice, settings):
    settings.PARLEY_WEBHOOKS_ALLOW_HTTP = True
    settings.PARLEY_WEBHOOKS_ALLOW_PRIVATE = True
    accepted(create(as_alice, url="http://localhost/hook"))


def test_http_goes_to_port_80_only(as_alice, settings):
    settings.PARLEY_WEBHOOKS_ALLOW_HTTP = True
    accepted(create(as_alice, url="http://hooks.example.com:80/parley"))
    refused(create(as_alice, url="http://hooks.example.com:443/parley"), 400, "invalid_body", field="url")


def test_the_operator_may_allow_more_ports(as_alice, settings):
    settings.PARLEY_WEBHOOKS_ALLOW_PORTS = frozenset({8443})
    accepted(create(as_alice, url="https://hooks.example.com:8443/parley"))
    refused(create(as_alice, url="https://hooks.example.com:8444/parley"), 400, "invalid_body", field="url")


@pytest.mark.parametrize("value", ["25,x", "0", "65536", "443;80", "-1"])
def test_a_bad_port_setting_fails_at_start(value):
    environment = {**os.environ, "DEBUG": "1", "PARLEY_WEBHOOKS_ALLOW_PORTS": value}
    started = subprocess.run([sys.executable, "-c", "import parley_site.settings"], env=environment,
                             cwd=django_settings.BASE_DIR, capture_output=True, text=True)
    assert started.returncode != 0 and "ImproperlyConfigured: PARLEY_WEBHOOKS_ALLOW_PORTS" in started.stderr


def test_an_internationalised_host_is_resolved_in_its_idna_form(as_alice, monkeypatch):
    import socket

    asked = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *args, **kwargs: asked.append(host) or [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port))])
    accepted(create(as_alice, url="https://Bücher.example/parley"))
    assert asked == ["xn--bcher-kva.example"]


def test_the_log_shows_a_webhooks_url_without_its_query(as_alice, caplog):
    caplog.set_level(logging.INFO, logger="parley.webhooks")
    accepted(create(as_alice, url=f"{HOOK}?token=s3cret-in-the-query#and-here"))
    assert f"on {HOOK}" in caplog.text and "s3cret" not in caplog.text and "and-here" not in caplog.text


def test_http_alone_still_needs_a_public_address(as_alice, settings):
    settings.PARLEY_WEBHOOKS_ALLOW_HTTP = True
    accepted(create(as_alice, url="http://hooks.example.com/parley"))
    refused(create(as_alice, url="http://localhost/hook"), 400, "invalid_body", field="url")


def test_creating_needs_read(make_token, agent):
    writer = agent(make_token("writer", ("write",)))
    with nothing_stored_here():
        refused(create(writer), 403, "token_right_missing", right="read")


def test_a_human_session_holds_no_webhooks(as_human):
    with nothing_stored_here():
        refused(create(as_human), 401, "token_invalid")
    refused(as_human.get("/api/v1/webhooks"), 401, "token_invalid")


def test_at_most_webhooks_per_token_max_per_token(as_alice, as_bob):
    for number in range(8):
        accepted(create(as_alice, url=f"{HOOK}/{number}"))
    with nothing_stored_here():
        refused(create(as_alice), 409, "limit_exceeded", limit="webhooks_per_token_max")
    accepted(create(as_bob))  # the limit is per token


def test_the_manifest_publishes_the_webhook_limit(as_alice):
    limits = as_alice.get("/api/v1/manifest").json()["limits"]
    assert (limits["webhooks_per_token_max"], limits["webhook_creates_per_minute"]) == (8, 10)


def test_refused_creations_count_against_webhook_creates_per_minute(as_alice, as_bob, alice, time_machine):
    time_machine.move_to("2026-06-01T12:00:00Z", tick=False)
    for number in range(5):
        refused(create(as_alice, url="https://10.0.0.1/parley"), 400, "invalid_body", field="url")
        refused(create(as_alice, url="https://10.0.0.2/parley", HTTP_IDEMPOTENCY_KEY=f"k{number}"), 400,
                "invalid_body", field="url")  # a keyed refusal rolls back, and still counts
    time_machine.shift(30)
    with nothing_stored_here():
        error = refused(create(as_alice), 429, "rate_limited", limit="webhook_creates_per_minute")
    assert error["detail"]["retry_after"] == 30
    accepted(create(as_bob))  # the limit is per token
    time_machine.shift(30)
    accepted(create(as_alice))
    assert Token.objects.get(pk=alice.pk).write_count == 1  # writes_per_minute counts the accepted one only


def test_only_the_owner_token_sees_and_deletes_its_webhooks(as_alice, as_bob):
    created = accepted(create(as_alice))
    assert as_bob.get("/api/v1/webhooks").json()["items"] == []
    with nothing_stored_here():
        refused(as_bob.client.delete(f"/api/v1/webhooks/{created['id']}"), 404, "not_found", object="webhook")
    assert Webhook.objects.count() == 1


def test_deleting_a_webhook_removes_it_and_answers_it_as_it_was(as_alice):
    created = accepted(create(as_alice))
    deleted = accepted(as_alice.client.delete(f"/api/v1/webhooks/{created['id']}"), 200)
    assert deleted["id"] == created["id"] and deleted["topics"] == ["inbox"] and "secret" not in deleted
    assert as_alice.get("/api/v1/webhooks").json()["items"] == []
    refused(as_alice.client.delete(f"/api/v1/webhooks/{created['id']}"), 404, "not_found")


def test_a_malformed_webhook_id_in_the_path_is_not_found(as_alice):
    refused(as_alice.client.delete("/api/v1/webhooks/hook-1"), 404, "not_found", object="webhook")


def test_a_method_the_route_does_not_take_is_method_not_allowed(as_alice):
    response = as_alice.client.put("/api/v1/webhooks", {}, format="json")
    refused(response, 405, "method_not_allowed")
    assert set(response["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


def test_a_revoked_token_is_token_invalid(as_alice, alice):
    token_revoke(Actor.for_operator("tests"), alice.pk)
    refused(create(as_alice), 401, "token_invalid")


def test_creating_and_deleting_count_as_writes_but_refusals_and_replays_do_not(as_alice, alice, settings):
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 2}
    created = accepted(create(as_alice, HTTP_IDEMPOTENCY_KEY="once"))
    accepted(create(as_alice, HTTP_IDEMPOTENCY_KEY="once"))  # a replay
    refused(create(as_alice, topics=["th_999"]), 404, "not_found")  # a refusal
    assert Token.objects.get(pk=alice.pk).write_count == 1
    accepted(as_alice.client.delete(f"/api/v1/webhooks/{created['id']}"), 200)
    with nothing_stored_here():
        refused(create(as_alice), 429, "rate_limited")
