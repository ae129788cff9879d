"""Media types of artifacts (Parley v1 §18): the shape a declared one must have, which are served as they
are stored (passive types only: nothing a browser would run), and which read as text."""
import re

from parley_site.errors import InvalidBody

DEFAULT = "application/octet-stream"
TEXT_DEFAULT = "text/plain; charset=utf-8"
MAX_CHARS = 255
# RFC 9110 §8.3.1: type "/" subtype, each a token, then parameters of token=(token|quoted-string). A
# quoted string holds visible ASCII, spaces and tabs only (RFC 9110's, without obs-text): a CR, LF or NUL
# would make the type unservable as a header, and the first upload's type is every later download's.
TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
QUOTED = r'"(?:[\t \x21\x23-\x5b\x5d-\x7e]|\\[\t \x21-\x7e])*"'
MEDIA_TYPE = re.compile(rf"({TOKEN})/({TOKEN})((?:[ \t]*;[ \t]*{TOKEN}=(?:{TOKEN}|{QUOTED}))*)[ \t]*")
# §18: plain text, JSON, PNG, JPEG, PDF. Everything else is answered as application/octet-stream.
PASSIVE = frozenset({"text/plain", "application/json", "image/png", "image/jpeg", "application/pdf"})


def clean(declared, field="Content-Type"):
    """The declared media type with its type and subtype in lower case; none declared is
    application/octet-stream; a malformed one is invalid_body naming `field`."""
    if declared is None or declared.strip() == "":
        return DEFAULT
    match = MEDIA_TYPE.fullmatch(declared.strip()) if len(declared) <= MAX_CHARS else None
    if match is None:
        raise InvalidBody(f"{field} must be a media type type/subtype[; name=value], at most {MAX_CHARS} "
                          "characters", field=field)
    kind, subtype, parameters = match.groups()
    return f"{kind.lower()}/{subtype.lower()}{parameters}"


def essence(media_type):
    return media_type.split(";", 1)[0].strip()


def served(media_type):
    """The Content-Type an artifact is answered with."""
    return media_type if essence(media_type) in PASSIVE else DEFAULT


def is_textual(media_type):
    kind = essence(media_type)
    return kind.startswith("text/") or kind == "application/json" or kind.endswith(("+json", "+xml"))
