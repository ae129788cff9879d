"""Personas: alice and bob write, mod holds lock, mallory only reads, a human staff user; and thread_in,
the one builder of threads in every state of §9."""

import socket
import threading
import time

import pytest
from django.conf import settings
from django.core.management.color import no_style
from django.db import connection
from django.db.backends.signals import connection_created
from django.utils import timezone
from rest_framework.test import APIClient

from tests.lanes import _database_free_tests_stay_free, pytest_addoption, pytest_collection_modifyitems  # noqa: F401
from tests.spec import SIDE_ACT, SIDE_STATES


def read_through_shared_cache_locks(sender, connection, **kwargs):
    """The suite's SQLite database is in memory with a shared cache (Django's test default). There a
    reader meets a writer's table lock as an error at once (SQLITE_LOCKED: no busy wait), which a file
    database, the demo's, never does: its reader waits or reads the last commit. So readers of the suite
    read through those locks, as live-server tests read while another thread writes (an MCP listener's
    re-check of its caller while an agent posts)."""
    if connection.vendor == "sqlite":
        connection.cursor().execute("PRAGMA read_uncommitted = 1")


connection_created.connect(read_through_shared_cache_locks)


@pytest.fixture(autouse=True)
def default_room(request):
    """The default room, which a migration made: pytest-django empties every table after a transactional
    test, so a later test of the same worker would find it gone. Put back as that migration makes it."""
    database = next((name for name in ("transactional_db", "db") if name in request.fixturenames), None)
    if database is None:
        return
    request.getfixturevalue(database)
    from forum.models import DEFAULT_ROOM_NUMBER
    from rooms.models import Room

    _, created = Room.objects.get_or_create(pk=DEFAULT_ROOM_NUMBER, defaults={
        "slug": settings.PARLEY_ROOMS["default_slug"], "name": settings.PARLEY_ROOMS["default_name"],
        "created_at": timezone.now()})
    if created:
        with connection.cursor() as cursor:
            for statement in connection.ops.sequence_reset_sql(no_style(), [Room]):
                cursor.execute(statement)


@pytest.fixture
def asgi_live_server(transactional_db):
    """parley_site.asgi:application under uvicorn, in this process, on a free port (its base URL): the
    application as it is served, with held calls and event streams, against the test database. Without the
    lifespan, whose shutdown would stop the process's feed listener for the tests after this one; the stream
    slots' connection is closed here instead, and the listener retires once nothing listens. Static files
    come from the apps' folders, as under `make run` (a deployment serves what `collectstatic` gathered)."""
    import uvicorn
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    from feed.hub import HUB
    from feed.slots import SLOTS
    from parley_site.asgi import application

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(ASGIStaticFilesHandler(application), lifespan="off",
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)
    SLOTS.close()
    while HUB.watching and time.monotonic() < deadline + 20:
        time.sleep(0.1)


@pytest.fixture
def make_token(db):
    from forum.actors import Actor
    from forum.tokens import token_create

    def make(handle, rights=("read", "write"), label=""):
        token, secret = token_create(Actor.for_operator("tests"), handle, set(rights), label)
        token.secret = secret
        return token

    return make


@pytest.fixture
def alice(make_token):
    return make_token("alice")


@pytest.fixture
def bob(make_token):
    return make_token("bob")


@pytest.fixture
def carol(make_token):
    return make_token("carol")


@pytest.fixture
def mod(make_token):
    return make_token("mod", ("read", "write", "lock"), label="Moderator")


@pytest.fixture
def mallory(make_token):
    return make_token("mallory", ("read",))


@pytest.fixture
def make_moderator(db, django_user_model):
    """Staff users with forum.moderate_thread: each acts as `human:<name>`, above every right (§7 rule 4)."""
    from django.contrib.auth.models import Permission

    def make(username):
        user = django_user_model.objects.create_user(username, password=f"pw-{username}-1234", is_staff=True)
        user.user_permissions.add(Permission.objects.get(content_type__app_label="forum",
                                                         codename="moderate_thread"))
        return user

    return make


@pytest.fixture
def human(make_moderator):
    return make_moderator("hannah")


@pytest.fixture
def staff_reader(db, django_user_model):
    """Staff without forum.moderate_thread: reads, never acts."""
    return django_user_model.objects.create_user("rita", password="pw-rita-12345", is_staff=True)


@pytest.fixture
def moderator(db, django_user_model):
    """mia: staff with forum.moderate_thread, for the console's pages."""
    from tests.console.console import grant

    return grant(django_user_model.objects.create_user("mia", password="pw-mia-12345", is_staff=True),
                 "moderate_thread")


@pytest.fixture
def token_keeper(db, django_user_model):
    """tess: staff who keeps the tokens (Django's token permissions), without forum.moderate_thread."""
    from tests.console.console import grant

    return grant(django_user_model.objects.create_user("tess", password="pw-tess-12345", is_staff=True),
                 "view_token", "add_token", "change_token")


@pytest.fixture
def console(moderator):
    """A browser session of mia's, logged in to the console."""
    from tests.console.console import logged_in

    return logged_in(moderator)


@pytest.fixture
def reader_console(staff_reader):
    from tests.console.console import logged_in

    return logged_in(staff_reader)


class Agent:
    """An API client acting as one token's line; `client` an APIClient unless given (tests.asgi_client)."""

    def __init__(self, token, client=None):
        self.token = token
        self.client = client or APIClient()
        if token is not None:
            self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.secret}")

    @property
    def identity(self):
        return self.token.identity

    def post(self, path="/api/v1/messages", body=None, **headers):
        return self.client.post(path, body if body is not None else {}, format="json", **headers)

    def get(self, path, **params):
        return self.client.get(path, params)

    def say(self, kind, body="text", **fields):
        return self.post(body={"kind": kind, "body": body, **fields})

    def ask(self, body="What is the question?", **fields):
        response = self.say("ask", body, **fields)
        assert response.status_code == 201, response.json()
        return response.json()["thread"]["id"]


@pytest.fixture
def agent():
    """Agent, or in a folder served as under ASGI (tests/feed) an Agent on an ASGI client."""
    return Agent


@pytest.fixture
def as_alice(alice, agent):
    return agent(alice)


@pytest.fixture
def as_bob(bob, agent):
    return agent(bob)


@pytest.fixture
def as_carol(carol, agent):
    return agent(carol)


@pytest.fixture
def as_mod(mod, agent):
    return agent(mod)


@pytest.fixture
def as_mallory(mallory, agent):
    return agent(mallory)


@pytest.fixture
def as_human(human, agent):
    moderator = agent(None)
    moderator.client.force_login(human)
    return moderator


@pytest.fixture
def thread_in(as_alice, as_bob, as_mod):
    """build(state, confirmed=False, title=...) -> thread id: the one way tests bring a thread to a state of
    §9. Alice opens it and moves it by her proposals (bob answers); mod confirms when asked to."""

    def build(state, confirmed=False, title="Which port does Parley use?"):
        thread = as_alice.ask(title)
        steps = {
            "open": [],
            "answered": [(as_bob, "answer")],
            "decided": [(as_alice, "decide")],
            "closed": [(as_bob, "answer"), (as_alice, "close")],
            **{side: [(as_alice, SIDE_ACT[side])] for side in SIDE_STATES},
        }[state]
        for speaker, kind in steps:
            response = speaker.say(kind, f"{kind} it", thread=thread)
            assert response.status_code == 201, response.json()
        if confirmed and steps:
            response = as_mod.post(f"/api/v1/threads/{thread}/confirm")
            assert response.status_code == 200, response.json()
        return thread

    return build
