"""The deployment parts of issue 5: /healthz, structured request logs without secrets, the HTTPS flags,
`check --deploy`, and the gunicorn configuration read from the environment."""
import json
import logging
import multiprocessing
import os
import runpy
import subprocess
import sys

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from bench.server import PROJECT_ROOT
from parley_site.requestlog import JsonFormatter

GUNICORN_CONFIG = str(PROJECT_ROOT / "gunicorn.conf.py")


def test_healthz_answers_200_when_the_database_answers(client, db):
    response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok", "checks": {"database": "ok"}})


def test_healthz_answers_whatever_host_the_load_balancer_probes_with(client, db, settings):
    settings.ALLOWED_HOSTS = ["parley.example.org"]
    assert client.get("/healthz", HTTP_HOST="10.0.0.7").status_code == 200
    assert client.get("/api/v1/manifest", HTTP_HOST="10.0.0.7").status_code == 400


def test_healthz_is_exempt_from_the_https_redirect_the_api_is_not(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/api/v1/manifest").status_code == 301


def test_healthz_answers_under_asgi_while_every_shared_request_thread_is_busy(transactional_db):
    """Django's own steps around a request (its start signal, closing the response) run on the shared request
    threads (parley_site.sync_threads): the probe must not wait for them."""
    import asyncio
    import threading

    import parley_site.asgi  # noqa: F401  loaded as a server loads it, before any request
    from parley_site.sync_threads import SYNC_THREADS, SYNC_WORK
    from tests.asgi_client import timed_request

    released = threading.Event()
    busy = [SYNC_WORK.submit(released.wait, 30) for _ in range(SYNC_THREADS)]
    try:
        health = asyncio.run(asyncio.wait_for(timed_request("GET", "/healthz"), 10))
    finally:
        released.set()
        for work in busy:
            work.result()
    assert (health.status, health.body["status"]) == (200, "ok") and health.seconds < 1


def on_maintenance_database(sql):
    """Run `sql` from the maintenance database: a database cannot close its own doors."""
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"],
                         password=db["PASSWORD"] or None, dbname="postgres", autocommit=True) as admin:
        admin.execute(sql)


@pytest.mark.postgres
def test_healthz_answers_503_while_the_database_refuses_connections_and_200_after(gunicorn, http_agent):
    database = connection.settings_dict["NAME"]
    with gunicorn(workers=1) as server:
        probe = http_agent(server, None)
        connection.close()  # ours goes down with the server's
        on_maintenance_database(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        try:
            on_maintenance_database(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    f"WHERE datname = '{database}'")
            away = probe.get("/healthz")
        finally:
            on_maintenance_database(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        back = probe.get("/healthz")
    assert (away[0], away[1]["status"], away[2]["Retry-After"]) == (503, "unavailable", "5")
    assert (back[0], back[1]["status"]) == (200, "ok")


def logged_lines(caplog):
    formatter = JsonFormatter()
    return [json.loads(formatter.format(record)) for record in caplog.records if record.name == "parley.request"]


def test_each_request_is_logged_as_one_json_line_with_its_refusal_reason(client, db, caplog):
    with caplog.at_level(logging.INFO, logger="parley.request"):
        client.get("/api/v1/threads", HTTP_AUTHORIZATION="Bearer pt_not_a_real_token")
    (line,) = logged_lines(caplog)
    assert {key: line[key] for key in ("method", "path", "status", "reason", "identity")} == {
        "method": "GET", "path": "/api/v1/threads", "status": 401, "reason": "token_invalid", "identity": None}
    assert line["duration_ms"] >= 0 and line["request_id"]


def test_request_logs_carry_no_token_no_query_string_and_no_body(as_alice, alice, caplog):
    with caplog.at_level(logging.INFO, logger="parley.request"):
        as_alice.get("/api/v1/threads", q="secret-search-words")
        as_alice.say("ask", "a body that stays out of the logs")
    text = json.dumps(logged_lines(caplog))
    assert alice.secret not in text and "secret-search-words" not in text and "stays out" not in text
    assert [line["identity"] for line in logged_lines(caplog)] == [alice.identity] * 2


def test_a_plain_request_id_is_echoed_and_a_hostile_one_replaced(client, db):
    assert client.get("/api/v1/manifest", HTTP_X_REQUEST_ID="lb-1234.abc")["X-Request-ID"] == "lb-1234.abc"
    hostile = client.get("/api/v1/manifest", HTTP_X_REQUEST_ID='x"\n{"forged": 1}')["X-Request-ID"]
    assert len(hostile) == 32 and hostile.isalnum()


def test_check_deploy_is_clean_when_configured_as_docs_deploy_md_says(tmp_path):
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "parley_site.settings", "HTTPS": "1",
                   "SECRET_KEY": "k3Yq-this-is-a-long-random-looking-test-value-9f8e7d6c5b4a3",
                   "ALLOWED_HOSTS": "parley.example.org", "DATABASE_URL": f"sqlite:///{tmp_path / 'deploy.db'}"}
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=PROJECT_ROOT, env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def gunicorn_settings(monkeypatch, **environment):
    for name in ("CONN_MAX_AGE", "GUNICORN_APP", "GUNICORN_WORKER_CLASS", "GUNICORN_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(GUNICORN_CONFIG), os.environ.get("CONN_MAX_AGE")


def test_the_production_command_serves_the_asgi_app_on_uvicorn_workers_one_per_core(monkeypatch):
    config, _ = gunicorn_settings(monkeypatch)
    assert (config["worker_class"], config["wsgi_app"], config["workers"]) == (
        "parley_site.workers.UvicornWorker", "parley_site.asgi:application", multiprocessing.cpu_count())


def test_the_gunicorn_worker_class_and_app_come_from_the_environment(monkeypatch):
    config, _ = gunicorn_settings(monkeypatch, GUNICORN_WORKER_CLASS="gthread",
                                  GUNICORN_APP="parley_site.wsgi:application", GUNICORN_WORKERS="3")
    assert (config["worker_class"], config["wsgi_app"], config["workers"]) == (
        "gthread", "parley_site.wsgi:application", 3)


@pytest.mark.parametrize("worker_class", ["parley_site.workers.UvicornWorker", "gthread"])
def test_the_threads_that_run_requests_keep_their_database_connections(monkeypatch, worker_class):
    assert gunicorn_settings(monkeypatch, GUNICORN_WORKER_CLASS=worker_class)[1] == "60"


def test_collected_static_files_are_served_compressed_by_the_app_itself(settings, tmp_path, db):
    settings.STATIC_ROOT = tmp_path / "static"
    call_command("collectstatic", interactive=False, verbosity=0)
    response = Client().get("/static/admin/css/base.css", HTTP_ACCEPT_ENCODING="gzip")
    response.close()  # a file response: its file stays open until closed
    assert response.status_code == 200
    assert (response["Content-Type"].split(";")[0], response["Content-Encoding"]) == ("text/css", "gzip")
