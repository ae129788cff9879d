"""A backup taken under load restores into a fresh database that serves the forum (docs/operations.md,
"Backup and restore"): `pg_dump --format=custom` of the live database while the production load writes to
it, `pg_restore` into an empty database, a production server on the copy. pg_dump reads one snapshot, so
the copy holds every write acknowledged before it started, and each write at most once; on the copy the
invariants hold, and cursors taken before the dump continue there (they encode database sequences, which
the dump carries) with nothing missed, nothing repeated and the copy's new writes after them."""
import subprocess
import time
from urllib.parse import urlencode

import pytest
from django.db import connection

from bench.server import GunicornServer, database_url
from forum.models import Message, StateEvent
from tests.production.invariants import nothing_accepted_after_a_confirmed_close, thread_chains_consistent
from tests.production.load import Ledger, make_crowd, run_load, start_agents
from tests.production.private_cluster import every_query_on

pytestmark = [pytest.mark.postgres, pytest.mark.long]

LOAD_SECONDS, DUMP_AFTER = 20, 4  # the load outlasts the event pages, the inbox pages and the dump


def page_to_the_end(agent, path, cursor=None):
    """Every item from `cursor` on, page by page until a page is not full (under load the end moves on),
    and the cursor after the last one."""
    items = []
    while True:
        status, page, _ = agent.get(f"{path}?{urlencode({'limit': 200, **({'cursor': cursor} if cursor else {})})}")
        assert status == 200, page
        items += page["items"]
        if len(page["items"]) < 200:
            return items, page["cursor"]
        cursor = page["cursor"]


def dumped_under_load(url, dump, reader, marks):
    """The `during` of run_load: after DUMP_AFTER seconds, read the events and the inbox to their ends
    (the cursors an agent would hold), then pg_dump the database while the load goes on."""
    def during(deadline):
        time.sleep(DUMP_AFTER)
        marks["events_seen"], marks["events_cursor"] = page_to_the_end(reader, "/api/v1/events")
        marks["inbox_cursor"] = page_to_the_end(reader, "/api/v1/inbox")[1]
        marks["dump_started"] = time.monotonic()
        subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", f"--dbname={url}"], check=True,
                       capture_output=True, timeout=120)
        marks["dump_ended"] = time.monotonic()
    return during


def copy_holds_what_was_acknowledged(ledger, dump_started, written_on_the_copy):
    """Acknowledged before the dump began: in the copy, as acknowledged. In the copy at all: acknowledged
    (during the dump, perhaps), and once. The copy's own writes take ids the original gave on after the
    dump: the copy is a fork from that instant, so they are left out."""
    acknowledged = {int(answer.body["message"]["id"][4:]): (answer.body["message"], answer.at)
                    for answer in ledger.answers if 200 <= answer.status < 300 and answer.body.get("message")}
    stored = {row.pk: row for row in Message.objects.exclude(pk__in=written_on_the_copy)}
    problems = [f"msg_{pk} acknowledged before the dump but not in the copy"
                for pk, (_, at) in acknowledged.items() if at < dump_started and pk not in stored]
    problems += [f"msg_{pk} in the copy but never acknowledged" for pk in stored if pk not in acknowledged]
    problems += [f"msg_{pk} in the copy differs from what was acknowledged" for pk, row in stored.items()
                 if pk in acknowledged and (row.kind, row.body) != (acknowledged[pk][0]["kind"],
                                                                     acknowledged[pk][0]["body"])]
    return problems


def test_a_dump_taken_under_load_restores_into_a_fresh_database_that_serves_the_forum(
        gunicorn, http_agent, make_token, scratch_database, django_db_blocker, tmp_path):
    ledger, marks = Ledger(), {}
    crowd, reader = make_crowd(make_token), make_token("reader")
    dump = tmp_path / "parley.dump"
    with gunicorn(workers=2, PARLEY_WRITES_PER_MINUTE=10**6) as server:
        during = dumped_under_load(database_url(connection.settings_dict), dump, http_agent(server, reader), marks)
        run_load(start_agents(server, http_agent, crowd, ledger), LOAD_SECONDS, during=during)
    assert [a for a in ledger.answers if a.status in (200, 201) and a.at > marks["dump_ended"]], \
        "the load should still have been writing after the dump"

    subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={scratch_database}", str(dump)],
                   check=True, capture_output=True, timeout=120)
    with GunicornServer(scratch_database, workers=1) as restored:
        copy_reader, asker = http_agent(restored, reader), http_agent(restored, crowd[0][0])
        events_after, _ = page_to_the_end(copy_reader, "/api/v1/events", marks["events_cursor"])
        status, asked, _ = asker.post({"kind": "ask", "body": "Asked on the restored copy"})
        new_events, _ = page_to_the_end(copy_reader, "/api/v1/events", marks["events_cursor"])
        inbox_after, _ = page_to_the_end(copy_reader, "/api/v1/inbox", marks["inbox_cursor"])

    with django_db_blocker.unblock(), every_query_on(scratch_database):
        # The events list's order: commit order, the writing transaction then the id (forum.commit_order).
        in_copy = [f"ev_{pk}" for pk in StateEvent.objects.order_by("xact", "id").values_list("id", flat=True)]
        written_on_the_copy = [int(asked["message"]["id"][4:])] if status == 201 else []
        problems = (copy_holds_what_was_acknowledged(ledger, marks["dump_started"], written_on_the_copy)
                    + thread_chains_consistent() + nothing_accepted_after_a_confirmed_close())
    assert status == 201, asked
    seen = [event["id"] for event in marks["events_seen"]]
    assert seen + [event["id"] for event in new_events] == in_copy, "the old cursor missed or repeated events"
    assert new_events[-1]["thread"] == asked["thread"]["id"] and events_after == new_events[:-1]
    assert inbox_after[-1]["id"] == asked["thread"]["id"], "the old inbox cursor should reach the new question"
    assert problems == []
