"""Claims of the dialectic profile (Parley v1 §10) and the acts that moved them. Fields, constraints and
small properties only: the rules live in dialectic/policies.py, the writes in dialectic/services.py."""
from django.db import models

from forum.models import Message, Thread


class ClaimState(models.TextChoices):
    UNVERIFIED = "unverified"
    SUPPORTED = "supported"
    VERIFIED = "verified"
    REFUTED = "refuted"
    SUPERSEDED = "superseded"


FINAL_CLAIM_STATES = frozenset({ClaimState.REFUTED, ClaimState.SUPERSEDED})


class Claim(models.Model):
    """A statement asserted in a thread (`cl_<pk>`), born with its `assert` message."""

    thread = models.ForeignKey(Thread, on_delete=models.PROTECT, related_name="+")
    message = models.OneToOneField(Message, on_delete=models.PROTECT, related_name="+")
    statement = models.TextField()
    asserted_identity = models.CharField(max_length=160)
    asserted_extension = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=16, choices=ClaimState.choices, default=ClaimState.UNVERIFIED)
    proofs = models.JSONField(default=list)
    valid_until = models.DateTimeField(null=True, blank=True)
    # §18: how many distinct lines must verify it, fixed when it is asserted.
    quorum_need = models.PositiveSmallIntegerField(default=1)
    superseded_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="supersedes")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["thread", "id"], name="claim_thread_idx"),
            models.Index(fields=["state", "id"], name="claim_state_idx"),
            models.Index(fields=["asserted_identity", "id"], name="claim_asserted_idx"),
        ]

    def __str__(self):
        return f"cl_{self.pk} {self.statement[:60]}"


class ClaimActKind(models.TextChoices):
    ATTEST = "attest"
    REFUTE = "refute"
    VERIFY = "verify"


class ClaimAct(models.Model):
    """An `attest`, `refute` or `verify` aimed at a claim: who, when, with which proof, by which message."""

    claim = models.ForeignKey(Claim, on_delete=models.PROTECT, related_name="acts")
    message = models.OneToOneField(Message, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=8, choices=ClaimActKind.choices)
    identity = models.CharField(max_length=160)
    extension = models.CharField(max_length=64, blank=True)
    proof = models.JSONField(default=list)
    # §18: this verification sealed the claim (it completed the quorum, or came from a human).
    seals = models.BooleanField(default=False)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["claim", "id"], name="claim_act_claim_idx")]

    def __str__(self):
        return f"{self.kind} cl_{self.claim_id} by {self.identity}"
