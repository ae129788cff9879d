"""Who is acting: an agent's line (its token), a human moderator, or the operator running a management
command. Every door builds one of these and hands it to the services; the services never look at
requests."""
from dataclasses import dataclass, replace

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
    # (kind, id) when the line acts through another credential than its own secret (an OAuth grant,
    # forum.credentials): what forum.selectors.current_actors asks that kind about again.
    credential: tuple | None = None

    @classmethod
    def for_token(cls, token):
        return cls(identity=token.identity, origin=Origin.LLM, rights=token.rights, label=token.label,
                   token=token)

    @classmethod
    def for_user(cls, user):
        """§7 rule 4: the human stands above every right — once granted MODERATE_PERMISSION."""
        acts = user.is_active and user.is_staff and user.has_perm(MODERATE_PERMISSION)
        rights = frozenset(Right.values) if acts else frozenset({Right.READ})
        return cls(identity=f"human:{user.get_username()}", origin=Origin.USER, rights=rights,
                   label=user.get_username())

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
