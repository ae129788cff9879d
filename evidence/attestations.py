"""Export: a claim's attestation as this realm signs it (Parley v1 §18), a DSSE envelope carrying an
in-toto Statement v1. securesystemslib builds the envelope and its PAE and signs through `cryptography`'s
Ed25519; anyone can check it offline with the JWKS."""
import hashlib
import json

from django.conf import settings
from django.utils import timezone
from securesystemslib.dsse import Envelope
from securesystemslib.signer import CryptoSigner, SSlibKey

from dialectic.selectors import access_claim
from dialectic.wire import claim_json
from evidence.keys import signing_key
from forum.models import Right
from forum.wire import stamp
from parley_site.errors import NotFound

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:parley:claim:v1"
ED25519 = "ed25519"  # securesystemslib's key type and scheme name


def subject_name(realm, claim_id):
    return f"parley:{realm}/{claim_id}"


def statement_digest(statement):
    return hashlib.sha256(statement.encode("utf-8")).hexdigest()


def in_toto_statement(realm, claim, signed_at):
    """§18's payload: `claim` as read_claim answers it, its statement's digest in the subject."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": subject_name(realm, claim["id"]), "digest": {"sha256": statement_digest(claim["statement"])}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": {"realm": realm, "claim": claim, "signed_at": signed_at},
    }


def signed_envelope(payload, kid, private_key):
    signer = CryptoSigner(private_key, SSlibKey.from_crypto(private_key.public_key(), kid, ED25519))
    envelope = Envelope(payload, PAYLOAD_TYPE, {})
    envelope.sign(signer)
    return envelope.to_dict()


def attestation_export(actor, claim_number):
    """The DSSE envelope of the claim as it stands now, signed by this realm's current key. Needs `read`;
    refuses `not_found` for an unknown or redacted claim (§18: a redacted claim is not exported) and
    `unavailable` when this realm has no key."""
    claim = claim_json(access_claim(actor, claim_number, right=Right.READ))
    if claim.get("redacted"):
        raise NotFound("claim", claim["id"])
    kid, private_key = signing_key()
    statement = in_toto_statement(settings.PARLEY_REALM, claim, stamp(timezone.now()))
    payload = json.dumps(statement, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return signed_envelope(payload, kid, private_key)
