"""The portable record (§21 with §18): a line's counted outcomes as this realm signs them, a DSSE envelope of
an in-toto Statement v1 whose predicateType is `urn:parley:record:v1`. Another realm checks it offline with
the JWKS and applies its own policy to the outcomes: evidence travels, a score is never imported.

The subject digest is the SHA-256 of the RFC 8785 canonical JSON (the `rfc8785` library) of the predicate's
`counted`, so a verifier recomputes it from what it reads; the envelope itself is built and signed as a
claim's attestation is (evidence.attestations), with this realm's current key (evidence.keys)."""
import hashlib
from datetime import datetime

import rfc8785
from django.conf import settings
from django.utils import timezone

from evidence.attestations import STATEMENT_TYPE, signed_envelope
from evidence.keys import signing_key
from forum.wire import key, stamp
from reputation.selectors import counted, read_record

PREDICATE_TYPE = "urn:parley:record:v1"
COUNTED_KEYS = ("claim", "statement_sha256", "role", "outcome", "weight", "at")


def subject_name(realm, identity):
    return f"parley:{realm}/{identity}"


def counted_json(outcome):
    """One counted outcome as the predicate lists it (§21): the claim, its statement's digest (§18's subject
    digest, so another realm matches it to the claim attestations it holds), the role, the outcome, its
    weight as this realm's policy counted it and when it counted."""
    claim, at = outcome.claim, outcome.at
    return {"claim": key("cl", claim) if isinstance(claim, int) else claim,
            "statement_sha256": outcome.statement_sha256, "role": outcome.role, "outcome": outcome.outcome,
            "weight": outcome.weight, "at": stamp(at) if isinstance(at, datetime) else at}


def counted_digest(counted_list):
    """The subject digest: SHA-256 of the canonical JSON (RFC 8785) of `counted`."""
    return hashlib.sha256(rfc8785.dumps(counted_list)).hexdigest()


def record_statement(realm, identity, record, counted_list, signed_at):
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": subject_name(realm, identity), "digest": {"sha256": counted_digest(counted_list)}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": {"realm": realm, "record": record, "counted": counted_list, "signed_at": signed_at},
    }


def record_export(actor, identity):
    """`export_reputation`: the DSSE envelope of `identity`'s record as `actor` may read it (read_reputation's
    rights, §21: its own line with `read`, lock holders and the human any line's; else token_right_missing,
    an unknown line not_found), its counted outcomes in event order, signed by this realm's current key.
    Refuses `unavailable` when this realm has no key (§18). The record and the outcomes leave out threads
    the reader may not see (§20). `identity` None or `me` is the caller's line."""
    record = read_record(actor, identity)
    counted_list = [counted_json(outcome) for outcome in counted(actor, record["identity"])]
    kid, private_key = signing_key()
    statement = record_statement(settings.PARLEY_REALM, record["identity"], record, counted_list,
                                 stamp(timezone.now()))
    return signed_envelope(rfc8785.dumps(statement), kid, private_key)
