"""The consent page (`/oauth/authorize`): django-oauth-toolkit's authorization endpoint, where a human
logged in to the console sees which client asks, where it came from and where the browser goes next, and
grants it a line and rights (oauth.services.grant_create), or refuses. The code is issued only with a
grant, in the same transaction: an authorization request refused after the human's choice stores nothing."""
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.contrib import admin
from django.db import transaction
from django.template.response import TemplateResponse
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.models import get_application_model
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views import AuthorizationView
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error, InvalidRequestError

from oauth.clients import client_description
from oauth.forms import ConsentForm
from oauth.policies import may_grant
from oauth.selectors import is_ours
from oauth.services import GrantRefused, grant_create


class ConsentView(AuthorizationView):
    template_name = "oauth/consent.html"
    form_class = ConsentForm
    login_url = reverse_lazy("admin:login")

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not may_grant(request.user):
            return TemplateResponse(request, "oauth/not_allowed.html", {
                **admin.site.each_context(request), "title": _("You may not connect clients")}, status=403)
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, *args, **kwargs):
        """A grant is always a human's choice: the page is shown even when the client asks to skip it for a
        user who approved it before (`approval_prompt=auto`)."""
        if "approval_prompt" in request.GET:
            request.GET = request.GET.copy()
            del request.GET["approval_prompt"]
        return super().get(request, *args, **kwargs)

    def validate_authorization_request(self, request):
        """django-oauth-toolkit's checks, and a resource (RFC 8707) that is this server: a client asking for
        a token meant elsewhere is told `invalid_target` before the human is asked anything."""
        scopes, credentials = super().validate_authorization_request(request)
        if credentials.get("code_challenge_method") != "S256":  # OAuth 2.1: S256, never plain
            raise OAuthToolkitError(error=InvalidRequestError(
                description="code_challenge_method must be S256", state=credentials.get("state")),
                redirect_uri=credentials.get("redirect_uri"))
        refuse_foreign(request.GET.getlist("resource"), credentials)
        return scopes, credentials

    def get_form_kwargs(self):
        requested = self.oauth2_data.get("scopes") or self.request.POST.get("scope", "").split()
        return {**super().get_form_kwargs(), "user": self.request.user, "requested": requested}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        form = context["form"]
        application = get_application_model().objects.filter(client_id=form["client_id"].value()).first()
        context["client"] = client_description(application, form["redirect_uri"].value() or "")
        context["title"] = _("Connect %(client)s to Parley") % {"client": context["client"].name}
        return context

    def redirect(self, redirect_to, application):
        """Every answer sent back to the client names this server (RFC 9207), its refusals too."""
        return super().redirect(with_issuer(redirect_to), application)

    def render_to_response(self, context, **kwargs):
        return super().render_to_response({**admin.site.each_context(self.request), **context}, **kwargs)

    def form_valid(self, form):
        self.line_grant = None
        if not form.cleaned_data.get("allow"):
            return super().form_valid(form)  # the client is told access_denied
        data = form.cleaned_data
        application = get_application_model().objects.get(client_id=data["client_id"])
        with transaction.atomic():
            try:
                refuse_foreign(data.get("resource", "").split(), data)
                self.line_grant = grant_create(self.request.user, application, data["rights"],
                                               line_id=form.line_id(), handle=data["handle"], label=data["label"])
            except GrantRefused as refusal:
                form.add_error(None, str(refusal))
                return self.form_invalid(form)
            except OAuthToolkitError as error:
                return self.error_response(error, application)
            data["scope"] = " ".join(sorted(self.line_grant.granted_rights))
            response = super().form_valid(form)
            if not getattr(self, "issued", False):  # the request failed its checks: no grant without a code
                transaction.set_rollback(True)
        return response

    def create_authorization_response(self, request, scopes, credentials, allow):
        line_grant = getattr(self, "line_grant", None)
        allow = allow and line_grant is not None  # no code without a grant the human just made
        if allow:
            credentials["line_grant_id"] = line_grant.pk  # oauth.validators stores it with the code
        answer = super().create_authorization_response(request, scopes, credentials, allow)
        self.issued = allow
        return answer


def with_issuer(uri):
    parts = urlsplit(uri)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(name == "iss" for name, _ in query):
        return uri
    return urlunsplit(parts._replace(query=urlencode([*query, ("iss", oauth2_settings.OIDC_ISS_ENDPOINT)])))


def refuse_foreign(resources, credentials):
    foreign = [resource for resource in resources if not is_ours(resource)]
    if foreign:
        raise OAuthToolkitError(error=CustomOAuth2Error(
            error="invalid_target", description=f"{foreign[0]} is not this server", state=credentials.get("state")),
            redirect_uri=credentials.get("redirect_uri"))
