"""The dialectic profile's writes (Parley v1 §10). They run inside forum.services.message_post, the one
write path of every envelope: right after the core has locked the thread and found the parent,
`claim_resolve` locks the claims concerned (thread before claim, claims in ascending order); after the
core's transition check `claim_prepare` refuses what §13 orders there; once the message is stored, the
returned `apply` writes the claim, its act and its events in the same transaction, and returns the claim
(the operations layer renders it, dialectic.wire) and the events, which the post announces."""
from dialectic.models import Claim, ClaimAct, ClaimActKind, ClaimState
from dialectic.policies import (UNCHANGED, Illegal, can_seal, can_supersede, next_claim_state, statement_digest,
                                supports_own_claim, verification_seals)
from dialectic.quorum import instance_quorum
from dialectic.selectors import access_claim, verifying_lines
from forum.models import Right, StateEvent
from forum.profiles import Erased, thread_floor
from forum.wire import key
from parley_site.errors import InvalidBody, InvalidTransition, SelfAttest, ThreadAuthorityMissing


def claim_resolve(actor, thread, envelope):
    """The profile's `resolve` hook: the claims the envelope names, locked (thread before claim, claims in
    ascending order), right after the core has found the thread and the parent. Refuses not_found (claim),
    then invalid_body (a claim, or a superseded claim, of another thread)."""
    if envelope["kind"] == "assert":
        numbers = envelope.get("supersedes", [])
        replaced = [access_claim(actor, number, right=Right.WRITE, lock=True) for number in sorted(numbers)]
        for old in replaced:
            # Only claims of the locked thread: locking another thread's claim (and writing its event) from
            # here would take locks in no fixed order across threads, and two such asserts would deadlock.
            _require_same_thread(old, thread, f"supersedes[{numbers.index(old.pk)}]")
        return replaced
    claim = access_claim(actor, envelope["claim"], right=Right.WRITE, lock=True)
    _require_same_thread(claim, thread, "claim")
    return claim


def claim_prepare(actor, thread, envelope, resolved):
    """The profile's `prepare` hook for `assert`, `attest`, `refute` and `verify` on the locked `thread`,
    with what claim_resolve found. Checks without writing and returns apply(message) -> (the claim, with its
    history (dialectic.selectors.visible_claims), the events it recorded).
    (The core has already refused a verify without the `verify` right: the profile's `rights`.) Refuses, in
    §13's order: thread_authority_missing (superseding another line's claim without lock), self_attest
    (attesting or verifying one's own line's claim), invalid_transition (§10's diagram, or a line verifying
    a claim a second time, §18)."""
    if envelope["kind"] == "assert":
        return _prepare_assert(actor, thread, envelope, resolved)
    return _prepare_claim_act(actor, envelope, resolved)


def _prepare_assert(actor, thread, envelope, replaced):
    for old in replaced:
        if not can_supersede(actor, old):
            raise ThreadAuthorityMissing(f"no authority over cl_{old.pk}", claim=f"cl_{old.pk}")
    for old in replaced:
        _next_state("assert", old)
    # §18, §20: the largest of the instance's quorum, the room's floor and the assert's own, fixed now.
    quorum_need = max(instance_quorum(), envelope.get("quorum", 1), thread_floor("quorum", thread) or 1)

    def apply(message):
        claim = Claim.objects.create(
            thread=thread, message=message, statement=message.body,
            statement_sha256=statement_digest(message.body), asserted_identity=actor.identity,
            asserted_extension=envelope["extension"], proofs=envelope.get("proof", []),
            valid_until=envelope.get("valid_until"), quorum_need=quorum_need,
            created_at=message.created_at, updated_at=message.created_at)
        events = [_record_event(claim, None, ClaimState.UNVERIFIED, actor, message)]
        for old in replaced:
            old.superseded_by = claim
            events.append(_move(old, ClaimState.SUPERSEDED, actor, message))
        return _with_history(actor, claim), tuple(events)
    return apply


def _prepare_claim_act(actor, envelope, claim):
    kind = envelope["kind"]
    if kind != "refute" and supports_own_claim(actor, claim):
        raise SelfAttest(claim=f"cl_{claim.pk}")
    new_state = _next_state(kind, claim)
    seals = False
    if kind == ClaimActKind.VERIFY:
        seals = _verification_seals(actor, claim)
        new_state = new_state if seals else UNCHANGED  # §18: short of its quorum the claim stays supported

    def apply(message):
        ClaimAct.objects.create(claim=claim, message=message, kind=kind, identity=actor.identity,
                                extension=envelope["extension"], proof=envelope.get("proof", []),
                                seals=seals, by_sealer=can_seal(actor), at=message.created_at)
        events = ()
        if new_state is not UNCHANGED:
            events = (_move(claim, new_state, actor, message),)
        elif kind == ClaimActKind.VERIFY:
            # §18: every verification is an event, so followers see the quorum fill up.
            events = (_record_event(claim, claim.state, claim.state, actor, message),)
        return _with_history(actor, claim), events
    return apply


def _verification_seals(actor, claim):
    """§18, for a verify on a supported claim: whether it seals; a line's second verification is refused
    (under the claim's lock, so two verifications of one line cannot both count)."""
    lines = verifying_lines(claim)
    if actor.identity in lines:
        raise InvalidTransition(f"this line has already verified cl_{claim.pk}; its quorum needs other lines",
                                claim=f"cl_{claim.pk}", state=claim.state, kind=ClaimActKind.VERIFY.value)
    return verification_seals(actor, len(lines) + 1, claim.quorum_need)


def _require_same_thread(claim, thread, field):
    if claim.thread_id != thread.pk:
        raise InvalidBody(f"cl_{claim.pk} does not belong to th_{thread.pk}", field=field)


def _next_state(kind, claim):
    try:
        return next_claim_state(kind, claim.state)
    except Illegal as refusal:
        raise InvalidTransition(str(refusal), claim=f"cl_{claim.pk}", state=claim.state, kind=kind) from None


def _move(claim, new_state, actor, message):
    old_state = claim.state
    claim.state, claim.updated_at = new_state, message.created_at
    claim.save(update_fields=["state", "superseded_by", "updated_at"])
    return _record_event(claim, old_state, new_state, actor, message)


def _record_event(claim, from_state, to_state, actor, message):
    """§10: every claim transition is an event, labelled with the act that caused it. Claim acts are not
    proposals, so the event is confirmed at once."""
    return StateEvent.objects.create(
        thread_id=claim.thread_id, room_number=message.thread.room_number,  # §20: the thread's room now
        message=message, claim_number=claim.pk, from_state=from_state,
        to_state=to_state, label=message.kind, origin=actor.origin, actor=actor.identity,
        at=message.created_at, confirmed_at=message.created_at, confirmed_by=actor.identity)


def _with_history(actor, claim):
    return access_claim(actor, claim.pk, right=Right.WRITE)


def claim_redact(message):
    """The profile's `redact` hook (§17), inside the core's redaction with the thread locked: erases the
    statement and proofs of the claim `message` asserted, or the proofs of the act it was. The claim keeps
    its state and history; it reads statement "" with `redacted` (dialectic.wire)."""
    claim = Claim.objects.select_for_update().filter(message=message).first()
    act = ClaimAct.objects.select_related("claim").filter(message=message).first()
    if claim is None and act is None:
        return Erased()
    texts = []
    if claim is not None:
        texts += [claim.statement, *_proof_texts(claim.proofs)]
        claim.statement, claim.proofs = "", []
        claim.save(update_fields=["statement", "proofs"])
    if act is not None:
        texts += _proof_texts(act.proof)
        act.proof = []
        act.save(update_fields=["proof"])
        claim = act.claim  # whose answers showed the act's proof among its attestations
    return Erased(texts=tuple(texts), objects=(claim,), answers={"claim": key("cl", claim.pk)},
                  tables=(Claim._meta.db_table, ClaimAct._meta.db_table))


def _proof_texts(proofs):
    return [text for proof in proofs for text in (proof["ref"], proof.get("note", ""))]
