"""The human's side of profile `rooms` (§20) in the console: the rooms list and a room's page, the acts on a
room (each one a rooms service call), moving a thread, and the moderation queue by room and scoped to the
rooms a staff user moderates. mia holds every right (the human), rita only reads, sam is staff who moderates
the room `design` only (`human:sam` appointed, as `parley_room appoint design human:sam --as moderator`)."""
import pytest

from forum.actors import Actor
from forum.models import StateEvent, Thread
from rooms.models import Appointment, LogEntry, Membership, Room
from rooms.services import appointment_add, member_add, room_create
from tests.console.console import logged_in, number, reports, thread_of, thread_url
from tests.forum.expect import accepted

ROOMS = "/admin/rooms/room/"
OPERATOR = Actor.for_operator("tests")


def room_url(room, view="change"):
    return f"{ROOMS}{room.pk}/{view}/"


def act_on(client, target, operation, **form):
    """One act of a room's page, followed to the page that reports it."""
    return client.post(room_url(target, "act"), {"operation": operation, **form}, follow=True)


def stored():
    """Everything a room act may write: what a refused one must leave as it was."""
    return (list(Appointment.objects.values_list("room_id", "identity", "role")),
            list(Membership.objects.values_list("room_id", "identity", "left_at")),
            list(Room.objects.values_list("pk", "visibility", "history", "archived_at")),
            LogEntry.objects.count(), StateEvent.objects.count(),
            list(Thread.objects.order_by("pk").values_list("pk", "room_number")))


def refusal(response):
    [(level, text)] = reports(response)
    assert level == "error"
    return text.split(" — ", 1)[1].split(":", 1)[0]


@pytest.fixture
def design(db):
    return room_create(OPERATOR, {"slug": "design", "name": "Design"})


@pytest.fixture
def ops(db):
    return room_create(OPERATOR, {"slug": "ops", "name": "Operations"})


@pytest.fixture
def leads(db, mod):
    room = room_create(OPERATOR, {"slug": "leads", "name": "Leads", "visibility": "private", "history": "joined"})
    member_add(OPERATOR, "leads", mod.identity)
    return room


@pytest.fixture
def scoped(db, django_user_model, design):
    """sam: staff without forum.moderate_thread, appointed moderator of `design` as human:sam."""
    user = django_user_model.objects.create_user("sam", password="pw-sam-12345", is_staff=True)
    appointment_add(OPERATOR, "design", "human:sam", "moderator")
    return logged_in(user)


def proposal_in(as_alice, as_carol, room=None):
    """A thread (in `room`, or the default room) whose `decide` by alice awaits a moderator (§8)."""
    thread = as_alice.ask("Which room?", **({"room": f"rm_{room.pk}"} if room else {}))
    accepted(as_carol.say("answer", "This one.", thread=thread))
    accepted(as_alice.say("decide", "Decided.", thread=thread))
    return thread


# --- reading -------------------------------------------------------------------------------------------------
def test_the_rooms_list_shows_each_room_the_human_sees_with_its_thread_and_member_counts(
        console, design, leads, as_alice, alice):
    as_alice.ask("In design", room="design")
    member_add(OPERATOR, "design", alice.identity)

    rows = {room.slug: room for room in console.get(ROOMS).context["cl"].result_list}

    assert set(rows) == {"general", "design", "leads"}
    assert (rows["design"].thread_count, rows["design"].member_count) == (1, 1)
    assert (rows["leads"].thread_count, rows["leads"].member_count) == (0, 1)


def test_a_private_room_is_neither_listed_nor_found_for_a_staff_user_who_may_not_see_it(reader_console, leads):
    slugs = {room.slug for room in reader_console.get(ROOMS).context["cl"].result_list}

    assert "leads" not in slugs
    assert reader_console.get(room_url(leads)).status_code == 404


def test_a_rooms_page_shows_its_threads_members_moderators_verifiers_and_log(console, design, as_alice, alice, bob):
    thread = as_alice.ask("Where do the parts go?", room="design")
    appointment_add(OPERATOR, "design", bob.identity, "moderator")
    appointment_add(OPERATOR, "design", alice.identity, "verifier")
    member_add(OPERATOR, "design", alice.identity)

    page = console.get(room_url(design))
    html = page.content.decode()

    assert page.status_code == 200
    assert [t.pk for t in page.context["threads"]] == [number(thread)] and "Where do the parts go?" in html
    assert [m.identity for m in page.context["members"]] == [alice.identity]
    assert (page.context["room"].moderators, page.context["room"].verifiers) == ([bob.identity], [alice.identity])
    assert [entry.action for entry in page.context["log"]] == ["member_added", "verifier_added", "moderator_added",
                                                               "created"]


def test_the_thread_list_hides_a_private_rooms_threads_from_a_staff_user_who_may_not_see_it(
        reader_console, console, leads, as_mod):
    thread = as_mod.ask("Among the leads", room="leads")

    assert number(thread) not in [t.pk for t in reader_console.get("/admin/forum/thread/").context["cl"].result_list]
    assert reader_console.get(thread_url(thread)).status_code == 302  # the admin's "no such object"
    assert number(thread) in [t.pk for t in console.get("/admin/forum/thread/").context["cl"].result_list]


# --- the human's acts ----------------------------------------------------------------------------------------
def test_the_human_appoints_and_dismisses_a_moderator_and_the_log_says_who(console, design, bob):
    appointed = act_on(console, design, "appoint", identity=bob.identity, role="moderator")
    assert reports(appointed) == [("success", f"Room rm_{design.pk}: {bob.identity} is a moderator of the room")]
    assert Appointment.objects.filter(room=design, identity=bob.identity, role="moderator").exists()

    act_on(console, design, "dismiss", identity=bob.identity, role="moderator")
    assert not Appointment.objects.filter(room=design, identity=bob.identity).exists()
    assert list(LogEntry.objects.filter(room=design).order_by("id").values_list("action", "actor")) == [
        ("created", "operator:tests"), ("moderator_added", "human:mia"), ("moderator_removed", "human:mia")]


def test_the_human_makes_a_room_private_with_joined_history(console, design):
    act_on(console, design, "settings", visibility="private", history="joined")

    design.refresh_from_db()
    assert (design.visibility, design.history) == ("private", "joined")


def test_a_malformed_visibility_is_invalid_body_and_changes_nothing(console, design):
    before = stored()

    assert refusal(act_on(console, design, "settings", visibility="secret", history="shared")) == "invalid_body"
    assert stored() == before


def test_the_human_archives_and_unarchives_a_room(console, design):
    act_on(console, design, "archive")
    assert Room.objects.get(pk=design.pk).is_archived

    act_on(console, design, "unarchive")
    assert not Room.objects.get(pk=design.pk).is_archived


def test_the_default_room_cannot_be_archived(console, default_room):
    before = stored()

    assert refusal(act_on(console, Room.objects.get(pk=1), "archive")) == "invalid_transition"
    assert stored() == before


def test_the_human_adds_and_removes_a_member_of_a_private_room(console, leads, alice):
    act_on(console, leads, "add_member", identity=alice.identity)
    assert Membership.objects.get(room=leads, identity=alice.identity).left_at is None

    act_on(console, leads, "remove_member", identity=alice.identity)
    assert Membership.objects.get(room=leads, identity=alice.identity).left_at is not None


def test_the_human_moves_a_thread_from_the_rooms_page(console, design, ops, as_alice):
    thread = as_alice.ask("Belongs in ops", room="design")

    act_on(console, design, "move_thread", thread=thread, room=f"rm_{ops.pk}", reason="An incident.")

    assert thread_of(thread).room_number == ops.pk
    event = StateEvent.objects.filter(thread_id=number(thread)).order_by("id").last()
    assert (event.label, event.note) == ("move", "An incident.")


def test_the_human_moves_a_thread_from_its_page(console, ops, as_alice):
    thread = as_alice.ask("Belongs in ops")

    response = console.post(thread_url(thread, "move"), {"room": "ops"}, follow=True)

    assert reports(response) == [("success", f"Thread {thread}: moved to rm_{ops.pk}")]
    assert thread_of(thread).room_number == ops.pk


def test_a_staff_user_who_only_reads_is_not_the_human_and_appoints_nobody(reader_console, design, bob):
    before = stored()

    assert refusal(act_on(reader_console, design, "appoint", identity=bob.identity, role="moderator")) == (
        "token_right_missing")
    assert stored() == before


def test_an_unknown_act_is_a_bad_request(console, design):
    assert console.post(room_url(design, "act"), {"operation": "delete"}).status_code == 400


# --- a staff user who moderates some rooms ------------------------------------------------------------------
def test_a_staff_user_appointed_to_a_room_adds_and_removes_its_members(scoped, design, alice):
    act_on(scoped, design, "add_member", identity=alice.identity)
    assert Membership.objects.get(room=design, identity=alice.identity).left_at is None

    act_on(scoped, design, "remove_member", identity=alice.identity)
    assert Membership.objects.get(room=design, identity=alice.identity).left_at is not None


@pytest.mark.parametrize("operation, form, reason", [
    ("add_member", {"identity": "ainotes:alice"}, "token_right_missing"),
    ("remove_member", {"identity": "ainotes:bob"}, "token_right_missing"),
    ("appoint", {"identity": "human:sam", "role": "moderator"}, "token_right_missing"),
    ("settings", {"visibility": "private", "history": "shared"}, "token_right_missing"),
    ("archive", {}, "token_right_missing"),
])
def test_a_staff_user_scoped_to_one_room_cannot_act_on_another(scoped, ops, alice, bob, operation, form, reason):
    member_add(OPERATOR, "ops", bob.identity)
    before = stored()

    assert refusal(act_on(scoped, ops, operation, **form)) == reason
    assert stored() == before


def test_a_staff_user_scoped_to_one_room_does_not_find_a_private_room_it_may_not_see(scoped, leads, alice):
    before = stored()

    assert scoped.get(room_url(leads)).status_code == 404
    assert refusal(act_on(scoped, leads, "add_member", identity=alice.identity)) == "not_found"
    assert stored() == before


def test_a_staff_user_scoped_to_one_room_cannot_move_a_thread_into_another(scoped, design, ops, as_alice):
    thread = as_alice.ask("Stay here", room="design")
    before = stored()

    assert refusal(act_on(scoped, design, "move_thread", thread=thread, room="ops")) == "token_right_missing"
    assert refusal(scoped.post(thread_url(thread, "move"), {"room": "ops"}, follow=True)) == "token_right_missing"
    assert stored() == before


def test_a_staff_user_scoped_to_one_room_confirms_there_and_not_elsewhere(scoped, design, as_alice, as_carol):
    mine, other = proposal_in(as_alice, as_carol, design), proposal_in(as_alice, as_carol)

    scoped.post(thread_url(mine, "settle"), {"operation": "confirm"}, follow=True)
    before = stored()
    refused = scoped.post(thread_url(other, "settle"), {"operation": "confirm"}, follow=True)

    assert thread_of(mine).state_confirmed_by == "human:sam"
    assert refusal(refused) == "token_right_missing"
    assert thread_of(other).is_pending and stored() == before


def test_a_staff_user_scoped_to_some_rooms_is_offered_only_those_to_move_a_thread_to(scoped, design, ops,
                                                                                     as_alice):
    room_create(OPERATOR, {"slug": "misc", "name": "Misc"})
    appointment_add(OPERATOR, "ops", "human:sam", "moderator")
    thread = as_alice.ask("Where to?", room="design")

    page = scoped.get(thread_url(thread))

    assert [room.slug for room in page.context["move_rooms"]] == ["ops"]


# --- the moderation queue ------------------------------------------------------------------------------------
def queue_of(client, **params):
    response = client.get("/admin/forum/thread/", {"pending": "yes", **params})
    return sorted(f"th_{thread.pk}" for thread in response.context["cl"].result_list)


def test_the_moderation_queue_is_filtered_by_room(console, design, as_alice, as_carol):
    mine, other = proposal_in(as_alice, as_carol, design), proposal_in(as_alice, as_carol)

    assert queue_of(console, room="design") == [mine]
    assert queue_of(console, room="rm_1") == [other]
    assert queue_of(console) == sorted([mine, other])


def test_the_queue_of_a_staff_user_who_moderates_some_rooms_lists_those_rooms_only(scoped, design, as_alice,
                                                                                  as_carol):
    mine = proposal_in(as_alice, as_carol, design)
    proposal_in(as_alice, as_carol)

    assert queue_of(scoped) == [mine]
    assert "Queue: 1" in scoped.get("/admin/").content.decode()


def test_a_room_filter_naming_a_room_the_staff_user_may_not_see_lists_nothing(reader_console, leads, as_mod,
                                                                             as_alice, as_carol):
    proposal_in(as_alice, as_carol)

    assert queue_of(reader_console, room="leads") == []


def test_the_room_list_reads_in_a_bounded_number_of_queries(console, design, ops, leads,
                                                           django_assert_max_num_queries):
    with django_assert_max_num_queries(16):
        assert console.get(ROOMS).status_code == 200


# --- German --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("language, shown, not_shown", [
    ("de", ["Moderatoren und Prüfer", "Raumprotokoll", "Mitglied hinzufügen", "Sichtbarkeit und Verlauf"],
     "Moderators and verifiers"),
    ("en", ["Moderators and verifiers", "Room log", "Add member", "Visibility and history"],
     "Moderatoren und Prüfer"),
])
def test_a_rooms_page_speaks_the_language_the_browser_asks_for(console, design, language, shown, not_shown):
    console.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    html = console.get(room_url(design)).content.decode()

    assert all(text in html for text in shown) and not_shown not in html


def test_a_room_act_reports_in_german_and_a_refusal_keeps_the_apis_reason(console, design, bob):
    console.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"

    done = act_on(console, design, "appoint", identity=bob.identity, role="verifier")
    refused = act_on(console, design, "add_member", identity="ainotes:nobody")

    assert reports(done) == [("success", f"Raum rm_{design.pk}: {bob.identity} ist verifier des Raums")]
    assert reports(refused)[0][1].startswith(f"Raum rm_{design.pk}: abgelehnt — not_found: ")


def test_the_state_history_list_hides_a_private_rooms_events_from_a_staff_user_who_may_not_see_it(
        reader_console, console, leads, as_mod):
    thread = number(as_mod.ask("Among the leads", room="leads"))
    events = StateEvent.objects.filter(thread_id=thread).count()

    def listed(client):
        return [event.thread_id for event in client.get("/admin/forum/stateevent/").context["cl"].result_list]

    assert thread not in listed(reader_console)
    assert listed(console).count(thread) == events > 0
