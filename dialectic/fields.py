"""The envelope fields the profile adds (§10) and their rules per kind. The shapes validate what agents
send and describe themselves in the envelope's JSON Schema; `clean_fields` runs right after the envelope's
shape, so a missing proof is `invalid_body` before any other refusal (§13)."""
import re
from urllib.parse import urlsplit

from django.utils import timezone

from dialectic.quorum import QuorumShape
from forum.limits import limit
from forum.profiles import proof_ref_problem
from parley_site.errors import InvalidBody
from parley_site.shapes import List, Obj, Ref, Str, Timestamp

PROOF_KINDS = ["url", "hash", "artifact", "commit", "log", "reproducer", "note", "other"]
# §10 [D]: the hex digest length of each accepted algorithm (blake2b at its default 64-byte digest).
HASH_HEX_LENGTHS = {"sha256": 64, "sha512": 128, "sha1": 40, "blake2b": 128}
HASH_PATTERN = r"(sha256|sha512|sha1|blake2b):([0-9a-fA-F]+)"
COMMIT_PATTERN = r"(?:[^@\s]+@)?[0-9a-fA-F]{7,64}"
URL_PATTERN = r"[hH][tT][tT][pP][sS]?://[^\s/?#]+[^\s]*"

FIELD_NAMES = frozenset({"proof", "claim", "supersedes", "valid_until", "quorum"})
# Per kind: the profile fields it requires, and those it accepts at all (§10).
REQUIRED = {"assert": set(), "attest": {"claim", "proof"}, "refute": {"claim", "proof"}, "verify": {"claim"}}
ACCEPTED = {"assert": {"proof", "supersedes", "valid_until", "quorum"}, "attest": {"claim", "proof"},
            "refute": {"claim", "proof"}, "verify": {"claim", "proof"}}


def url_problem(ref):
    parts = urlsplit(ref)
    if not re.fullmatch(URL_PATTERN, ref) or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "must be an absolute http(s) URL"
    return None


def hash_problem(ref):
    match = re.fullmatch(HASH_PATTERN, ref)
    if not match:
        return f"must be <algo>:<hex> with algo one of {', '.join(HASH_HEX_LENGTHS)}"
    algo, digest = match.groups()
    if len(digest) != HASH_HEX_LENGTHS[algo]:
        return f"a {algo} digest has {HASH_HEX_LENGTHS[algo]} hex digits, not {len(digest)}"
    return None


def commit_problem(ref):
    if not re.fullmatch(COMMIT_PATTERN, ref):
        return "must be 7-64 hex digits, optionally preceded by <repo>@"
    return None


# The refs this profile checks itself; a profile that holds what another kind points at checks those
# (forum.profiles.Profile.proof_refs).
REF_CHECKS = {"url": url_problem, "hash": hash_problem, "commit": commit_problem}


class ProofShape(Obj):
    """A proof is a pointer, never an opinion (§10): `{kind, ref, note?}`, `ref` checked per kind."""

    def __init__(self):
        super().__init__({
            "kind": Str(enum=PROOF_KINDS, description="What the pointer points at."),
            "ref": Str(min_len=1, max_len=limit("proof_ref_max_chars"), description=(
                "The pointer: url an absolute http(s) URL; hash <algo>:<hex> (sha256, sha512, sha1, "
                "blake2b); commit 7-64 hex digits, optionally <repo>@ before; others free text.")),
            "note": Str(max_len=limit("proof_note_max_chars"), description="A short explanation."),
        }, required=["kind", "ref"], description="A proof: a pointer to evidence.")

    def validate(self, value, path=""):
        proof = super().validate(value, path)
        check = REF_CHECKS.get(proof["kind"])
        problem = check(proof["ref"]) if check else proof_ref_problem(proof["kind"], proof["ref"])
        if problem:
            field = f"{path}.ref"
            raise InvalidBody(f"{field} ({proof['kind']}) {problem}", field=field)
        return proof

    def json_schema(self):
        schema = super().json_schema()
        patterns = {"url": URL_PATTERN, "hash": HASH_PATTERN, "commit": COMMIT_PATTERN}
        schema["allOf"] = [
            {"if": {"properties": {"kind": {"const": kind}}},
             "then": {"properties": {"ref": {"pattern": f"^(?:{pattern})$"}}}}
            for kind, pattern in patterns.items()
        ]
        return schema


def envelope_fields():
    return {
        "proof": List(ProofShape(), max_items=limit("proofs_per_act_max"), description=(
            "dialectic: proofs (at most proofs_per_act_max); attest and refute need at least one.")),
        "claim": Ref("cl", description="dialectic: the claim an attest, refute or verify aims at "
                                       "(cl_<n> or <n>); it must belong to `thread`."),
        "supersedes": List(Ref("cl"), min_items=1, max_items=limit("supersedes_max"), description=(
            "dialectic: claims this assert replaces (needs authority over them).")),
        "valid_until": Timestamp(description=(
            "dialectic: an assert's expiry, in the future: YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM), offset "
            "-12:00 to +14:00 (§14.1).")),
        "quorum": QuorumShape(),
    }


def clean_fields(envelope):
    """§10's rules per kind on the already shaped envelope: required and accepted fields, no claim
    superseded twice, an expiry in the future."""
    kind = envelope["kind"]
    for name in sorted(FIELD_NAMES & envelope.keys() - ACCEPTED[kind]):
        raise InvalidBody(f"{name} is not accepted with {kind}", field=name)
    for name in sorted(REQUIRED[kind] - envelope.keys()):
        raise InvalidBody(f"{kind} needs {name}", field=name)
    if "proof" in REQUIRED[kind] and not envelope["proof"]:
        raise InvalidBody(f"{kind} needs at least one proof", field="proof")
    seen = set()
    for index, number in enumerate(envelope.get("supersedes", [])):
        if number in seen:
            raise InvalidBody(f"cl_{number} is listed twice", field=f"supersedes[{index}]")
        seen.add(number)
    if "valid_until" in envelope and envelope["valid_until"] <= timezone.now():
        raise InvalidBody("valid_until must lie in the future", field="valid_until")
