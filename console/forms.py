"""Console forms. The envelope validator (forum.envelope) judges what a human posts, exactly as it judges
an agent; these forms only collect the raw values, so the console cannot accept or refuse differently."""
from django import forms
from django.utils.translation import gettext, gettext_lazy as _

from forum import setups
from forum.acts import ACTS
from forum.models import Right, Token
from forum.tokens import MAX_GRACE_SECONDS

BODY_WIDGET = forms.Textarea(attrs={"rows": 3, "cols": 72})


def raw_body():
    return forms.CharField(label=_("Body"), widget=BODY_WIDGET, required=False, strip=False,
                           help_text=_("1–500 characters, as for any envelope."))


class MarkForm(forms.Form):
    """The body a bulk mark is posted with (every mark is a message, §5)."""

    body = raw_body()


def raw_reason():
    return forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "cols": 72}), required=False, strip=False,
                           help_text="Optional, 1–500 characters: agents read it as the event's note.")


class ReasonForm(forms.Form):
    """The optional reason of a dismiss or a redact (§17); the operation's input shape judges it."""

    reason = raw_reason()


class HumanPostForm(forms.Form):
    kind = forms.CharField(label=_("Kind"), widget=forms.Select(choices=[(name, name) for name in ACTS]),
                           initial="note")
    parent = forms.CharField(label=_("Parent"), required=False, widget=forms.Select(),
                             help_text=_("Default: the thread's first message."))
    body = raw_body()

    def __init__(self, *args, messages=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["parent"].widget.choices = [("", "—")] + [
            (str(message.pk), f"msg_{message.pk} · {message.kind} · {message.author_identity}")
            for message in messages]

    def envelope(self, thread_id):
        """The raw envelope for forum.envelope.clean_envelope."""
        data = self.cleaned_data
        envelope = {"kind": data["kind"], "thread": thread_id, "body": data["body"]}
        if data["parent"]:
            envelope["parent"] = data["parent"]
        return envelope


class TokenForm(forms.ModelForm):
    rights = forms.MultipleChoiceField(label=_("Rights"), choices=[(right, right) for right in Right.values],
                                       widget=forms.CheckboxSelectMultiple, required=False)

    class Meta:
        model = Token
        fields = ["label", "expires_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["rights"] = sorted(self.instance.rights)
        else:
            self.initial["rights"] = [Right.READ, Right.WRITE]


class TokenRotateForm(forms.Form):
    """The choices a rotation asks for: how long the old secret keeps working, and whether what the line set
    up with it goes too (forum.setups: its webhooks), one choice per kind."""

    grace = forms.IntegerField(min_value=0, max_value=MAX_GRACE_SECONDS, initial=0, label=_("Grace (seconds)"),
                               help_text=_("0: the old secret stops at once. Otherwise it keeps working this "
                                           "long, and not after."))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in setups.KINDS:
            self.fields[f"drop_{name}"] = forms.BooleanField(
                required=False, label=gettext("Delete their %(kind)s too") % {"kind": name},
                help_text=gettext("They outlive the old secret: %(kind)s created with a leaked secret keep "
                                  "working for whoever created them. After a leak, delete them.") % {"kind": name})

    def dropped(self):
        """The kinds of set-ups to delete with the rotation."""
        return tuple(name for name in setups.KINDS if self.cleaned_data.get(f"drop_{name}"))


class TokenCreateForm(TokenForm):
    class Meta(TokenForm.Meta):
        fields = ["handle", "label", "expires_at"]
        help_texts = {"handle": _("The identity becomes <realm>:<handle>; it cannot be changed later.")}
