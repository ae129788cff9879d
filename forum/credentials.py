"""What a caller authenticates with. The core knows two kinds itself: a line's own secret (LINE_SECRET) and
a staff user's console session (STAFF_SESSION). Other bearer credentials plug in here, from their
AppConfig.ready(): an OAuth access token (oauth/) is one. A credential acts as a line, so rights, limits,
slots and webhooks stay the line's; the core only asks the credential's kind who the caller is, at each
request (forum.tokens.token_authenticate) and again while a stream stays open
(forum.selectors.current_actors): a follower lives no longer than the credential it was opened with.

The core imports no kind's module: a secret names its kind by its prefix, which a line's own secrets
(`pt_`, forum.tokens.new_secret) never start with."""
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class CredentialKind:
    name: str
    prefix: str
    # authenticate(secret) -> the forum.actors.Actor it acts as, with `credential` set to (name, id); or
    # raises token_invalid.
    authenticate: Callable
    # current(ids) -> {id: the Actor as it stands now, or None when it may no longer read at all}.
    current: Callable


# The core's own kinds, as forum.actors.Actor.credential names them: a line's secret by its hash (a rotation
# ends it at once, or when its grace ends), a staff session by its key (a logout or a new password ends it).
LINE_SECRET = "secret"
STAFF_SESSION = "session"

KINDS = {}


def register(kind):
    KINDS[kind.name] = kind


def kind_of_secret(secret):
    """The kind whose prefix `secret` starts with, or None for a line's own secret."""
    return next((kind for kind in KINDS.values() if secret.startswith(kind.prefix)), None)
