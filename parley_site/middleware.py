"""Machine paths answer JSON even when a view fails: a §13 refusal where the failure is one (the database
is away: 503 unavailable), otherwise a logged 500 that leaks nothing; and before any view, when the request
names a host this server does not serve (§14.1). They speak English whatever the browser prefers."""
import logging

from django.core.exceptions import DisallowedHost
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

from parley_site.errors import InvalidBody
from parley_site.exception_handler import as_parley_error, json_refusal, json_server_error
from parley_site.views import is_machine_path

logger = logging.getLogger("parley")


class MachineErrorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_machine_path(request):
            return None
        error = as_parley_error(exception)
        if error is not None:
            return json_refusal(error)
        logger.exception("unhandled error on %s %s", request.method, request.path)
        return json_server_error(request)


class MachineHostMiddleware:
    """A Host outside ALLOWED_HOSTS under the machine paths is `400 invalid_body` naming `Host`, not Django's
    HTML page. Placed before every middleware that reads the host (the HTTPS redirect, CommonMiddleware),
    which would otherwise raise first; with DEBUG on too, where Django would answer its debug page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if is_machine_path(request):
            try:
                request.get_host()
            except DisallowedHost:  # the host itself is not echoed: it is whatever the client made up
                return json_refusal(InvalidBody("this server does not answer for that Host", field="Host"))
        return self.get_response(request)


class HumanLocaleMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware for the humans' pages (the console speaks English or German, as the browser
    asks). The machine paths stay English whatever Accept-Language says: a refusal's reason, message and
    detail are what a client matches on (§13), and DRF's own messages would otherwise arrive translated."""

    def process_request(self, request):
        if is_machine_path(request):
            translation.activate("en")
            request.LANGUAGE_CODE = "en"
            return
        super().process_request(request)

    def process_response(self, request, response):
        if is_machine_path(request):
            return response  # neither `Vary: Accept-Language` nor `Content-Language`: the answer never varies
        return super().process_response(request, response)
