"""Claims of the dialectic profile (Parley v1 §10) and the acts that moved them. Fields, constraints and
small properties only: the rules live in dialectic/policies.py, the writes in dialectic/services.py."""
from django.db import models
from django.utils.translation import gettext_lazy as _

from forum.models import CurrentTransaction, Message, Thread


class ClaimState(models.TextChoices):
    UNVERIFIED = "unverified"
    SUPPORTED = "supported"
    VERIFIED = "verified"
    REFUTED = "refuted"
    SUPERSEDED = "superseded"


FINAL_CLAIM_STATES = frozenset({ClaimState.REFUTED, ClaimState.SUPERSEDED})


class Claim(models.Model):
    """A statement asserted in a thread (`cl_<pk>`), born with its `assert` message."""

    thread = models.ForeignKey(Thread, on_delete=models.PROTECT, related_name="+", verbose_name=_("thread"))
    message = models.OneToOneField(Message, on_delete=models.PROTECT, related_name="+", verbose_name=_("message"))
    statement = models.TextField(_("statement"))
    # §18's subject digest, the SHA-256 of the statement in UTF-8, fixed at the assert (a redaction erases the
    # statement, not the digest): §21 finds the claims that overturn a refutation by it.
    statement_sha256 = models.CharField(_("statement SHA-256"), max_length=64, blank=True, default="")
    asserted_identity = models.CharField(_("asserted identity"), max_length=160)
    asserted_extension = models.CharField(_("asserted extension"), max_length=64, blank=True)
    state = models.CharField(_("state"), max_length=16, choices=ClaimState.choices, default=ClaimState.UNVERIFIED)
    proofs = models.JSONField(_("proofs"), default=list)
    valid_until = models.DateTimeField(_("valid until"), null=True, blank=True)
    # §18: how many distinct lines must verify it, fixed when it is asserted.
    quorum_need = models.PositiveSmallIntegerField(_("quorum needed"), default=1)
    superseded_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="supersedes", verbose_name=_("superseded by"))
    created_at = models.DateTimeField(_("created at"))
    updated_at = models.DateTimeField(_("updated at"))
    # The transaction that asserted it: with the id, its place in the list of claims (forum.commit_order).
    xact = models.BigIntegerField(db_default=CurrentTransaction(), editable=False)

    class Meta:
        verbose_name = _("claim")
        verbose_name_plural = _("claims")
        indexes = [
            models.Index(fields=["thread", "id"], name="claim_thread_idx"),
            models.Index(fields=["xact", "id"], name="claim_order_idx"),
            models.Index(fields=["state", "id"], name="claim_state_idx"),
            models.Index(fields=["asserted_identity", "id"], name="claim_asserted_idx"),
            models.Index(fields=["statement_sha256"], name="claim_statement_idx"),
        ]

    def __str__(self):
        return f"cl_{self.pk} {self.statement[:60]}"


class ClaimActKind(models.TextChoices):
    ATTEST = "attest"
    REFUTE = "refute"
    VERIFY = "verify"


class ClaimAct(models.Model):
    """An `attest`, `refute` or `verify` aimed at a claim: who, when, with which proof, by which message."""

    claim = models.ForeignKey(Claim, on_delete=models.PROTECT, related_name="acts", verbose_name=_("claim"))
    message = models.OneToOneField(Message, on_delete=models.PROTECT, related_name="+", verbose_name=_("message"))
    kind = models.CharField(_("kind"), max_length=8, choices=ClaimActKind.choices)
    identity = models.CharField(_("identity"), max_length=160)
    extension = models.CharField(_("extension"), max_length=64, blank=True)
    proof = models.JSONField(_("proof"), default=list)
    # §18: this verification sealed the claim (it completed the quorum, or came from a human).
    seals = models.BooleanField(_("seals"), default=False)
    # §21: the act's line could seal this claim when it acted (the human, a line with `verify`, a verifier of
    # the thread's room), so a refutation by it holds at once. Kept, since rights and appointments change.
    by_sealer = models.BooleanField(_("by a sealer"), default=False)
    at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("act on a claim")
        verbose_name_plural = _("acts on the claim")
        indexes = [models.Index(fields=["claim", "id"], name="claim_act_claim_idx"),
                   models.Index(fields=["identity", "claim"], name="claim_act_identity_idx")]

    def __str__(self):
        return f"{self.kind} cl_{self.claim_id} by {self.identity}"
