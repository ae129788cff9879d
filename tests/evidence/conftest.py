"""Artifacts for the evidence tests: uploads over REST (raw bytes) and their readers."""
import hashlib
from contextlib import contextmanager

import pytest

from evidence.models import Artifact
from tests.forum.expect import world

TEXT = b"The build log says: 3 tests failed.\n"


def artifact_id(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def upload(agent, data=TEXT, content_type="text/plain", **headers):
    return agent.client.post("/api/v1/artifacts", data, content_type=content_type, **headers)


def stored_world():
    """Everything an upload or a redaction could change: the forum's world and the artifacts."""
    return world(), list(Artifact.objects.order_by("id").values())


@contextmanager
def nothing_stored():
    """A refused request changed nothing: neither the forum nor the artifacts."""
    before = stored_world()
    yield
    assert stored_world() == before, "a refused request changed stored state"


@pytest.fixture
def stored(as_alice):
    """An artifact alice uploaded: its id."""
    response = upload(as_alice)
    assert response.status_code == 201, response.content
    return response.json()["artifact"]["id"]
