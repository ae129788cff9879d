"""Who may grant what to an OAuth client (Parley v1 §2: never more than the human may grant). Pure rules.

- A human grants at most the rights they act with in the console themselves: a moderator
  (`forum.moderate_thread`, above every right, §7 rule 4) every right, `lock` too; staff without it only
  `read`, as they only read in the console.
- Django's token permissions decide which line: a new line needs `forum.add_token`, as creating a token in
  the console does; lending an existing line needs `forum.change_token`, since whoever may change a token
  may rotate it and hand its secret to anyone.
- An existing line lends at most the rights it has."""
from forum.actors import Actor

CREATE_LINE_PERMISSION = "forum.add_token"
LEND_LINE_PERMISSION = "forum.change_token"


def is_console_user(user):
    return user.is_authenticated and user.is_active and user.is_staff


def may_create_line(user):
    return is_console_user(user) and user.has_perm(CREATE_LINE_PERMISSION)


def may_lend_line(user):
    return is_console_user(user) and user.has_perm(LEND_LINE_PERMISSION)


def may_grant(user):
    return may_create_line(user) or may_lend_line(user)


def grantable_rights(user, line=None):
    """The rights `user` may grant a client acting as `line` (None: a new line)."""
    ceiling = Actor.for_user(user).rights if is_console_user(user) else frozenset()
    return ceiling if line is None else ceiling & line.rights
