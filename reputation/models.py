"""The served record (Parley v1 §21): per line (identity) and scope (`global`, or `rm_<n>` for one room's
claims), what reputation.policy computed the last time the line's facts changed. Fields only; the jobs of
reputation.tasks keep it, reputation.selectors serves it."""
from django.db import models
from django.utils.translation import gettext_lazy as _


class Standing(models.Model):
    identity = models.CharField(_("identity"), max_length=160)
    scope = models.CharField(_("scope"), max_length=24)  # "global" | "rm_<n>"
    # The events cursor (forum.cursors, scope "events") of the newest event among the facts read: the record
    # counts every write up to there.
    as_of = models.CharField(_("as of"), max_length=100, blank=True)
    # The time decay is measured to: the newest outcome counted (§21 "Decay"); null without outcomes.
    decayed_to = models.DateTimeField(_("decayed to"), null=True, blank=True)
    computed_at = models.DateTimeField(_("computed at"))
    # When the same facts give another record by time alone (a hold ending, a claim expiring, the line
    # leaving `new`): the read and a periodic job compute it again from then on.
    changes_at = models.DateTimeField(_("changes at"), null=True, blank=True)
    score = models.FloatField(_("score"))
    mean = models.FloatField(_("mean"))
    alpha = models.FloatField(_("alpha"))
    beta = models.FloatField(_("beta"))
    successes = models.FloatField(_("successes"))
    failures = models.FloatField(_("failures"))
    tier = models.CharField(_("tier"), max_length=16)
    outcomes = models.JSONField(_("outcomes"), default=dict)  # outcome -> how many counted
    pending = models.PositiveIntegerField(_("pending"), default=0)

    class Meta:
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        constraints = [models.UniqueConstraint(fields=["identity", "scope"], name="standing_line_scope_uniq")]
        indexes = [models.Index(fields=["changes_at"], name="standing_changes_idx")]

    def __str__(self):
        return f"{self.identity} {self.scope} {self.score:.3f} {self.tier}"
