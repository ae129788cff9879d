"""Opaque list cursors (§11): a position in a database sequence, tagged with the list it belongs to, so it
survives restarts and a cursor of one list is refused by another."""
import base64
import binascii
import re

from parley_site.errors import InvalidBody


def encode(scope, position):
    return base64.urlsafe_b64encode(f"{scope}:{position}".encode()).decode().rstrip("=")


def decode(scope, cursor, field="cursor"):
    if cursor is None:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    match = re.fullmatch(rf"{re.escape(scope)}:([0-9]{{1,19}})", text)
    if not match:
        raise InvalidBody(f"{field} is not a cursor of this list", field=field)
    return int(match.group(1))
