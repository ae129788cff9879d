"""Who is acting: an agent's line (its token), a human moderator, or the operator running a management
command. Every door builds one of these and hands it to the services; the services never look at
requests."""
from dataclasses import dataclass, field, replace
from datetime import datetime

from forum.credentials import LINE_SECRET, STAFF_SESSION
from forum.models import Origin, Right

# Staff who hold this permission act as the human; other staff only read (the console and the API alike).
MODERATE_PERMISSION = "forum.moderate_thread"


@dataclass(frozen=True)
class Actor:
    identity: str
    origin: str
    rights: frozenset
    label: str = ""
    token: object = None
    # (kind, id): the credential the caller came with, which forum.selectors.current_actors asks about again
    # while a stream or a held call stays open (forum.credentials): a line's own secret (by its hash), a
    # staff session (by its key), an OAuth grant. None for an actor no request authenticated (the
    # console's own actions, the operator): then its line or user is asked about. Never shown: a session
    # key is a bearer secret.
    credential: tuple | None = field(default=None, repr=False)
    # When the credential stops by time alone (the token's expiry, the end of a rotation's grace), or None:
    # an open follower checks again then, without waiting for its heartbeat.
    valid_until: datetime | None = None

    @classmethod
    def for_token(cls, token, secret_hash=None):
        """The line of `token`; with `secret_hash`, as it acts through the secret of that hash (its current
        one, or its previous one within a rotation's grace), and for no longer than that secret works."""
        ends = [token.expires_at]
        if secret_hash is not None and secret_hash == token.previous_secret_hash:
            ends.append(token.previous_secret_ends_at)
        return cls(identity=token.identity, origin=Origin.LLM, rights=token.rights, label=token.label,
                   token=token, credential=(LINE_SECRET, secret_hash) if secret_hash is not None else None,
                   valid_until=min((end for end in ends if end is not None), default=None))

    @classmethod
    def for_user(cls, user, session_key=None):
        """§7 rule 4: the human stands above every right — once granted MODERATE_PERMISSION. With
        `session_key`, as signed in through that session, for no longer than it stands."""
        acts = user.is_active and user.is_staff and user.has_perm(MODERATE_PERMISSION)
        rights = frozenset(Right.values) if acts else frozenset({Right.READ})
        return cls(identity=f"human:{user.get_username()}", origin=Origin.USER, rights=rights,
                   label=user.get_username(),
                   credential=(STAFF_SESSION, session_key) if session_key is not None else None)

    @classmethod
    def for_operator(cls, command):
        """Whoever runs `command` on the server (`manage.py`): a human above every right, named in logs as
        `operator:<command>`. Only the management commands build one."""
        return cls(identity=f"operator:{command}", origin=Origin.USER, rights=frozenset(Right.values),
                   label="operator")

    def holding(self, rights):
        """This caller with `rights` besides its own: what it may do over one thread whose room it moderates or
        verifies (§20), as the thread's access check found (forum.selectors.access_thread)."""
        return replace(self, rights=self.rights | frozenset(rights)) if rights else self

    @property
    def is_human(self):
        return self.origin == Origin.USER

    @property
    def display_label(self):
        """§3: a lock holder is shown as `KI · <label>`."""
        if not self.is_human and Right.LOCK in self.rights:
            return f"KI · {self.label or self.identity}"
        return ""
