"""Who may read /metrics: the bearer of PARLEY_METRICS_TOKEN, or a socket peer in PARLEY_METRICS_ALLOW;
everyone else finds nothing there, as on any unknown route."""
import ipaddress
import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from django.test import Client

from metrics import access

pytestmark = pytest.mark.django_db


def metrics_read(token=None, peer="127.0.0.1", **meta):
    if token is not None:
        meta["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return Client(REMOTE_ADDR=peer).get("/metrics", **meta)


def unknown_route():
    return Client().get("/api/v1/no-such-route")


@pytest.fixture
def allow(settings):
    def allow(*networks):
        settings.PARLEY_METRICS_ALLOW = [ipaddress.ip_network(network) for network in networks]
    return allow


def assert_as_an_unknown_route(response):
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == unknown_route().json()
    assert response.json()["error"]["reason"] == "not_found"


def test_the_metrics_token_reads_the_series(metrics_token):
    response = metrics_read(metrics_token)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert "# TYPE parley_held_waits gauge" in response.content.decode()


def test_a_wrong_token_finds_nothing_as_on_an_unknown_route(metrics_token):
    assert_as_an_unknown_route(metrics_read(metrics_token[:-1] + "x"))


def test_no_token_and_no_allowed_peer_finds_nothing(metrics_token):
    assert_as_an_unknown_route(metrics_read())


def test_with_no_metrics_token_set_no_bearer_gets_in(settings):
    settings.PARLEY_METRICS_TOKEN = ""
    assert_as_an_unknown_route(metrics_read(""))
    assert_as_an_unknown_route(metrics_read("anything"))


def test_the_token_is_compared_in_constant_time(metrics_token, monkeypatch):
    compared = []
    real = access.hmac.compare_digest
    monkeypatch.setattr(access.hmac, "compare_digest", lambda a, b: compared.append((a, b)) or real(a, b))
    assert metrics_read(metrics_token).status_code == 200
    assert compared == [(metrics_token.encode(), metrics_token.encode())]


def test_a_socket_peer_in_the_allow_list_reads_without_a_token(allow):
    allow("10.0.0.0/24", "192.0.2.7/32")
    assert metrics_read(peer="10.0.0.9").status_code == 200
    assert metrics_read(peer="192.0.2.7").status_code == 200


def test_an_allowed_ipv4_peer_is_known_by_its_ipv6_mapped_address_too(allow):
    allow("10.0.0.9/32")
    assert metrics_read(peer="::ffff:10.0.0.9").status_code == 200


def test_a_peer_outside_the_allow_list_finds_nothing(allow):
    allow("10.0.0.0/24")
    assert_as_an_unknown_route(metrics_read(peer="10.0.1.9"))
    assert_as_an_unknown_route(metrics_read(peer="::1"))


def test_x_forwarded_for_never_lets_a_peer_in(allow):
    """The address a header names is never the peer's; and where the server may have taken the peer's
    address from that header (uvicorn behind a trusted proxy), a request carrying it is not let in by
    address at all."""
    allow("10.0.0.0/24")
    assert_as_an_unknown_route(metrics_read(peer="203.0.113.5", HTTP_X_FORWARDED_FOR="10.0.0.9"))
    assert_as_an_unknown_route(metrics_read(peer="10.0.0.9", HTTP_X_FORWARDED_FOR="10.0.0.9"))
    assert_as_an_unknown_route(metrics_read(peer="10.0.0.9", HTTP_FORWARDED="for=10.0.0.9"))


def test_the_token_still_reads_through_a_proxy(metrics_token, allow):
    allow("10.0.0.0/24")
    assert metrics_read(metrics_token, peer="10.0.0.9", HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 200


def test_an_allowed_peer_that_posts_is_told_the_method(allow):
    allow("127.0.0.1/32")
    response = Client().post("/metrics")
    assert (response.status_code, response.json()["error"]["reason"]) == (405, "method_not_allowed")


@pytest.mark.parametrize("variable, value", [("PARLEY_METRICS_TOKEN", "short"),
                                             ("PARLEY_METRICS_ALLOW", "10.0.0.0/24,not-an-address")])
def test_a_bad_metrics_setting_fails_at_start(variable, value):
    environment = {**os.environ, "DEBUG": "1", variable: value}
    started = subprocess.run([sys.executable, "-c", "import parley_site.settings"], env=environment,
                             cwd=django_settings.BASE_DIR, capture_output=True, text=True)
    assert started.returncode != 0
    assert f"ImproperlyConfigured: {variable}" in started.stderr

