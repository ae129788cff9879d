"""Opaque list cursors (§11): a place in a commit-ordered list (forum.commit_order.Position: the writing
transaction and a database sequence), tagged with the list it belongs to, so it survives restarts and a
cursor of one list is refused by another. A place whose transaction is 0 (every place on SQLite, and
every row written before commit order came) is written as the bare position, as every cursor was before:
a cursor issued before the upgrade reads as that place and continues where it stopped."""
import base64
import binascii
import re

from forum.commit_order import START, Position
from parley_site.errors import InvalidBody


def encode(scope, position):
    place = f"{position.seq}" if position.xact == 0 else f"{position.xact}.{position.seq}"
    return base64.urlsafe_b64encode(f"{scope}:{place}".encode()).decode().rstrip("=")


def decode(scope, cursor, field="cursor"):
    if cursor is None:
        return START
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    match = re.fullmatch(rf"{re.escape(scope)}:(?:([0-9]{{1,19}})\.)?([0-9]{{1,19}})", text)
    if not match:
        raise InvalidBody(f"{field} is not a cursor of this list", field=field)
    return Position(int(match.group(1) or 0), int(match.group(2)))
