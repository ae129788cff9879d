"""The console's claim form. It only collects raw values: the envelope validator judges them exactly as
it judges an agent's, so the console cannot accept a proof the API would refuse."""
from django import forms
from django.utils.translation import gettext_lazy as _

from console.forms import raw_body
from dialectic.fields import PROOF_KINDS

# Where an envelope refusal's detail.field is shown on this form.
FIELD_OF = {"body": "body", "proof": "proof_kind", "proof[0].kind": "proof_kind", "proof[0].ref": "proof_ref",
            "proof[0].note": "proof_note"}


class ClaimActForm(forms.Form):
    body = raw_body()
    proof_kind = forms.ChoiceField(label=_("Proof kind"), required=False,
                                   choices=[("", _("— no proof —"))] + [(kind, kind) for kind in PROOF_KINDS],
                                   help_text=_("A refutation needs a proof; a seal may have one."))
    proof_ref = forms.CharField(label=_("Proof ref"), required=False, strip=False,
                                widget=forms.TextInput(attrs={"size": 72}),
                                help_text=_("url: an absolute http(s) URL; hash: <algo>:<hex>; commit: hex."))
    proof_note = forms.CharField(label=_("Proof note"), required=False, strip=False,
                                 widget=forms.TextInput(attrs={"size": 72}))

    def envelope(self, kind, claim):
        """The raw envelope for forum.envelope.clean_envelope."""
        data = self.cleaned_data
        envelope = {"kind": kind, "thread": claim.thread_id, "claim": claim.pk, "body": data["body"]}
        if data["proof_kind"] or data["proof_ref"]:
            proof = {"kind": data["proof_kind"], "ref": data["proof_ref"]}
            if data["proof_note"]:
                proof["note"] = data["proof_note"]
            envelope["proof"] = [proof]
        return envelope

    def add_refusal(self, refusal):
        self.add_error(FIELD_OF.get(refusal.detail.get("field")), f"{refusal.reason}: {refusal.message}")
