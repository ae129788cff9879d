"""§20's room log is read in commit order, as every other cursor list is (forum.commit_order, §19): an entry
whose change is still in flight is held back, never passed over, and a cursor from before the upgrade (a
bare id) continues where it stopped."""
import time

from django.db import connection

from rooms.models import LogEntry
from tests.forum.expect import accepted
from tests.forum.test_commit_order import bare_cursor
from tests.forum.conftest import low_limits  # noqa: F401  (a fixture on_postgresql needs)
from tests.forum.test_concurrency import Hold, on_postgresql  # noqa: F401  (a fixture)


def written_before_the_upgrade():
    """Every log entry now there as the migration left the entries it found: written by transaction 0."""
    if connection.vendor != "postgresql":
        return  # SQLite keeps 0 everywhere
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # past the trigger that keeps xact
        cursor.execute("UPDATE rooms_logentry SET xact = 0")
        cursor.execute("SET LOCAL session_replication_role = origin")


def log_after(agent, room, cursor=None):
    return accepted(agent.get(f"/api/v1/rooms/{room}/log", **({"cursor": cursor} if cursor else {})), 200)


def test_a_room_log_entry_held_back_by_an_older_transaction_appears_once_it_has_ended(
        on_postgresql, make_room, add_member, alice, mod, as_mod):
    room = make_room("team", visibility="private")
    cursor = log_after(as_mod, room)["cursor"]
    hold = Hold(mod.identity, "older")  # an uncommitted row: a transaction of this database in flight
    hold.start()
    assert hold.ready.wait(10)
    try:
        add_member(room, alice)
        while_held = log_after(as_mod, room, cursor)
    finally:
        hold.release.set()
        hold.join(30)
    assert while_held["items"] == [] and while_held["cursor"] == cursor
    after, deadline = log_after(as_mod, room, cursor), time.monotonic() + 5
    while not after["items"] and time.monotonic() < deadline:  # a transaction of another test may delay it
        time.sleep(0.1)
        after = log_after(as_mod, room, cursor)
    assert [(entry["action"], entry["subject"]) for entry in after["items"]] == [("member_added", alice.identity)]
    assert log_after(as_mod, room, after["cursor"])["items"] == []


def test_a_room_log_cursor_issued_before_commit_order_continues_where_it_stopped(
        make_room, add_member, alice, bob, as_mod):
    room = make_room("team", visibility="private")
    add_member(room, alice)
    written_before_the_upgrade()
    created = LogEntry.objects.get(action="created", room_id=int(room.removeprefix("rm_")))
    page = log_after(as_mod, room, bare_cursor("room_log", created.pk))
    assert [entry["action"] for entry in page["items"]] == ["member_added"]
    add_member(room, bob)
    later = log_after(as_mod, room, page["cursor"])
    assert [(entry["action"], entry["subject"]) for entry in later["items"]] == [("member_added", bob.identity)]
