"""Machine paths answer JSON even when a view fails: a §13 refusal where the failure is one (the database
is away: 503 unavailable), otherwise a logged 500 that leaks nothing."""
import logging

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
