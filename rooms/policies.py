"""Pure rules of the rooms profile (Parley v1 §20): no I/O, only answers about a room and what the caller is
there (its membership, the rooms it moderates)."""
import re

from forum.policies import can_moderate
from rooms.models import Opening

ROOM_NUMBER = re.compile(r"(?:rm_)?([1-9][0-9]{0,17})")
# §20: a slug holds at least one letter, so it never reads as a number.
SLUG = re.compile(r"[a-z0-9][a-z0-9-]{1,29}")
ROOM_REF_PATTERN = r"(?:rm_)?[1-9][0-9]{0,17}|[a-z0-9][a-z0-9-]{1,29}"


def is_slug(text):
    return bool(SLUG.fullmatch(text)) and any(char.isalpha() for char in text)


def parse_room_ref(ref):
    """("number", n) for `rm_<n>` or `<n>`, ("slug", s) for a slug, None for anything else."""
    text = str(ref)
    match = ROOM_NUMBER.fullmatch(text)
    if match:
        return "number", int(match.group(1))
    return ("slug", text) if is_slug(text) else None


def moderates(actor, room, moderated_numbers):
    """§20: lock holders and the human moderate every room; a room's moderators, or its parent's, theirs."""
    return can_moderate(actor) or room.pk in moderated_numbers or room.parent_id in moderated_numbers


def may_open_in(actor, room, is_member, moderates_it):
    """§20's table, "open a thread": `opening` (anyone, members, moderators), and membership in a private
    room; moderators, lock holders and the human need none."""
    if moderates_it:
        return True
    if room.opening == Opening.MODERATORS:
        return False
    if room.opening == Opening.MEMBERS or room.is_private:
        return is_member
    return True


def your_role(moderates_it, membership, is_default):
    """§20's `your_role`: moderator, member, muted or null. Every line is a member of the default room until
    it leaves it (no membership row: a member)."""
    if moderates_it:
        return "moderator"
    if membership is None:
        return "member" if is_default else None
    if membership.left_at is not None:
        return None
    return "muted" if membership.muted else "member"
