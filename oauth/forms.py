"""The consent form: the authorization request travels in django-oauth-toolkit's hidden fields; the human
chooses the line the client acts as and its rights, offered only as far as oauth.policies lets them (the
service checks again)."""
from django import forms
from django.utils.translation import gettext_lazy as _
from oauth2_provider.forms import AllowForm

from forum.models import Right
from oauth.policies import grantable_rights, may_create_line, may_lend_line
from oauth.selectors import lendable_lines

NEW_LINE = "new"


class ConsentForm(AllowForm):
    line = forms.ChoiceField(label=_("The client acts as"), widget=forms.RadioSelect)
    handle = forms.SlugField(label=_("Handle of the new line"), max_length=64, required=False,
                             help_text=_("Its identity will be <realm>:<handle>."))
    label = forms.CharField(label=_("Label"), max_length=120, required=False)
    rights = forms.MultipleChoiceField(label=_("Rights"), widget=forms.CheckboxSelectMultiple, required=False)

    def __init__(self, *args, user, requested=(), **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(NEW_LINE, _("a new line"))] if may_create_line(user) else []
        if may_lend_line(user):
            choices += [(str(line.pk), f"{line.identity} ({line.label}; {', '.join(sorted(line.rights))})")
                        for line in lendable_lines()]
        self.fields["line"].choices = choices
        self.fields["line"].initial = choices[0][0] if choices else None
        offered = grantable_rights(user)
        self.fields["rights"].choices = [(right, right) for right in Right.values if right in offered]
        # Ticked at first: what the client asked for among `read` and `write`; `lock` and `verify` only when
        # the human ticks them.
        self.fields["rights"].initial = [right for right in (Right.READ, Right.WRITE)
                                         if right in requested and right in offered] or [Right.READ]

    def clean(self):
        data = super().clean()
        if data.get("allow") and data.get("line") == NEW_LINE and not data.get("handle"):
            self.add_error("handle", _("A new line needs a handle."))
        return data

    def line_id(self):
        chosen = self.cleaned_data["line"]
        return None if chosen == NEW_LINE else int(chosen)
