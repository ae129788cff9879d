"""Verification at upload (Parley v1 §18): bytes that parse as a DSSE envelope, whatever their declared
media type, are an attestation of another realm and must pass every check, or the upload is refused
`invalid_body` (detail.field "signatures") and nothing is stored. Every other upload is no attestation.

The artifacts' upload calls `inspect` with every upload's bytes (a bytes-like view of the staged file). A DSSE
envelope is small JSON: up to INSPECTED_MAX_BYTES the bytes are parsed and checked; beyond it they are not
parsed (that would hold the whole document in memory), and a JSON object naming the three envelope fields
as keys is refused as an envelope too large to inspect, so no forged, padded envelope is stored unchecked.
It stores the answer as the artifact's `attests`, which reads through `attests_view`: that decides
`trusted` when read."""
import json
import re

from django.conf import settings
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

from evidence.attestations import ED25519, PAYLOAD_TYPE, PREDICATE_TYPE, STATEMENT_TYPE, statement_digest
from evidence.trust import trusted_keys
from parley_site.errors import InvalidBody

INSPECTED_MAX_BYTES = 1024 * 1024
ENVELOPE_FIELDS = {"payloadType", "payload", "signatures"}


def key_pattern(name):
    """`name` as a key of a JSON object (at any depth), each letter as written or escaped (JSON may escape
    any character of a key: "p\\u0061yload")."""
    def letter(character):
        escaped = "".join(f"[{digit.lower()}{digit.upper()}]" if digit.isalpha() else digit
                          for digit in f"{ord(character):04x}")
        return f"(?:{character}|\\\\u{escaped})"
    return re.compile(f'"{"".join(letter(character) for character in name)}"[ \\t\\r\\n]*:'.encode())


FIELD_KEYS = [key_pattern(name) for name in sorted(ENVELOPE_FIELDS)]
LEADING_SPACE = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*")
SUBJECT_NAME = re.compile(r"^parley:(?P<realm>[^/]+)/(?P<claim>cl_[0-9]+)$")
# What `attests` records of the attested claim (besides its id, which the subject names).
CLAIM_FIELDS = ("statement", "state", "certainty")
ATTESTS_FIELDS = ("realm", "claim", "state", "certainty", "signed_at", "kid")


def refuse(message):
    return InvalidBody(f"not an attestation this realm accepts: {message}", field="signatures")


def inspect(data):
    """The `attests` record of a valid attestation from a trusted realm, None for bytes that are no DSSE
    envelope; `invalid_body` (field "signatures") for an envelope failing any check of §18, or one over
    INSPECTED_MAX_BYTES. `data`: bytes, or a bytes-like view of them (an mmap)."""
    if len(data) > INSPECTED_MAX_BYTES:
        if may_be_envelope(data):
            raise refuse(f"an envelope must be at most {INSPECTED_MAX_BYTES} bytes to be inspected")
        return None
    envelope = parsed_envelope(bytes(data))
    if envelope is None:
        return None
    statement = in_toto_statement(envelope)
    realm, claim = attested_claim(statement)
    kid = verified_key(envelope, realm)
    return {"realm": realm, "claim": claim["id"], "state": claim["state"], "certainty": claim["certainty"],
            "signed_at": statement["predicate"]["signed_at"], "kid": kid}


def may_be_envelope(data):
    """Whether bytes too large to parse could parse as a DSSE envelope: a JSON object (UTF-8) whose keys,
    at any depth, include the three fields; or JSON in another encoding json.loads reads (UTF-16, UTF-32),
    which is not searched. Errs towards refusing: an envelope is never larger than a few KiB."""
    encoding = json.detect_encoding(bytes(data[:4]))
    if encoding not in ("utf-8", "utf-8-sig"):
        return bytes(data[:64]).decode(encoding, errors="ignore").lstrip(" \t\r\n\ufeff").startswith("{")
    start = LEADING_SPACE.match(data).end()
    if data[start:start + 1] != b"{":
        return False
    return all(pattern.search(data, start) for pattern in FIELD_KEYS)


def parsed_envelope(data):
    """A DSSE envelope's fields, checked for shape, or None when `data` is no JSON object holding them."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(document, dict) or not ENVELOPE_FIELDS <= set(document):
        return None
    signatures = document["signatures"]
    if not (isinstance(signatures, list) and signatures and all(
            isinstance(entry, dict) and isinstance(entry.get("keyid"), str) and isinstance(entry.get("sig"), str)
            for entry in signatures)):
        raise refuse("signatures must be a non-empty list of {keyid, sig}")
    if document["payloadType"] != PAYLOAD_TYPE:
        raise refuse(f"payloadType must be {PAYLOAD_TYPE}")
    try:
        # from_dict rewrites the signatures it reads, so it gets copies.
        return Envelope.from_dict({**document, "signatures": [dict(entry) for entry in signatures]})
    except (ValueError, TypeError, AttributeError):  # binascii.Error is a ValueError
        raise refuse("payload and sig must be standard base64, one signature per keyid") from None


def in_toto_statement(envelope):
    try:
        statement = json.loads(envelope.payload)
    except (ValueError, RecursionError):
        statement = None
    if not isinstance(statement, dict) or statement.get("_type") != STATEMENT_TYPE:
        raise refuse(f"the payload must be an in-toto Statement ({STATEMENT_TYPE})")
    if statement.get("predicateType") != PREDICATE_TYPE:
        raise refuse(f"predicateType must be {PREDICATE_TYPE}")
    return statement


def attested_claim(statement):
    """(realm, claim) of a Statement whose subject, predicate and digest agree, from a realm trusted here."""
    subject, predicate = statement.get("subject"), statement.get("predicate")
    if not (isinstance(subject, list) and len(subject) == 1 and isinstance(subject[0], dict)):
        raise refuse("the Statement must have exactly one subject")
    name = SUBJECT_NAME.match(str(subject[0].get("name")))
    claim = predicate.get("claim") if isinstance(predicate, dict) else None
    if name is None or not isinstance(claim, dict) or not isinstance(predicate.get("signed_at"), str) or \
            not all(isinstance(claim.get(field), str) for field in CLAIM_FIELDS):
        raise refuse("the subject must be parley:<realm>/cl_<n> and the predicate {realm, claim, signed_at}, "
                     f"its claim with {', '.join(CLAIM_FIELDS)} as strings")
    realm = name["realm"]
    if predicate.get("realm") != realm or claim.get("id") != name["claim"]:
        raise refuse("the subject and the predicate must name the same realm and claim")
    if realm == settings.PARLEY_REALM:
        raise refuse("it is this realm's own attestation; cite the claim itself")
    digest = subject[0].get("digest")
    if not isinstance(digest, dict) or digest.get("sha256") != statement_digest(claim["statement"]):
        raise refuse("the subject's sha256 digest is not that of the claim's statement")
    return realm, claim


def verified_key(envelope, realm):
    """The kid of a key `realm` lists that verifies the envelope's signature."""
    listed = trusted_keys(realm)
    if not listed:
        raise refuse(f"the realm {realm!r} is not trusted here")
    keys = [SSlibKey(kid, ED25519, ED25519, {"public": raw.hex()}) for kid, raw in listed.items()
            if kid in envelope.signatures]
    if not keys:
        raise refuse(f"it is signed by no key the realm {realm!r} lists")
    try:
        return next(iter(envelope.verify(keys, 1)))
    except VerificationError:
        raise refuse("the signature does not verify: the payload was changed or signed by another key") from None


def attests_view(stored):
    """What an artifact's `attests` reads now (§18): `trusted` is whether its realm is still trusted and its
    key still listed, decided at every read. None for an artifact that is no attestation."""
    if stored is None:
        return None
    return {**{name: stored[name] for name in ATTESTS_FIELDS},
            "trusted": stored["kid"] in trusted_keys(stored["realm"])}
