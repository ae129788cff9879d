"""The REST doors of the webhook operations (§17): `/api/v1/webhooks` lists (GET) and creates (POST),
`/api/v1/webhooks/{id}` deletes (DELETE). The core's OperationView serves each, one operation per method."""
from rest_framework.exceptions import MethodNotAllowed

from forum.api.views import OperationView
from webhooks import operations


class MethodOperationView(OperationView):
    """One route, an operation per HTTP method (`operations`)."""

    operations = {}

    @property
    def operation(self):
        method = getattr(getattr(self, "request", None), "method", None)
        if method in self.operations:
            return self.operations[method]
        if method in (None, "OPTIONS"):
            return next(iter(self.operations.values()))
        raise MethodNotAllowed(method)

    @property
    def allowed_methods(self):
        return list(self.operations)

    def get(self, request, ref=None):
        return self.answer(request, ref)

    def post(self, request, ref=None):
        return self.answer(request, ref)

    def delete(self, request, ref=None):
        return self.answer(request, ref)


class WebhooksView(MethodOperationView):
    operations = {"GET": operations.LIST_WEBHOOKS, "POST": operations.CREATE_WEBHOOK}


class WebhookView(MethodOperationView):
    operations = {"DELETE": operations.DELETE_WEBHOOK}
    path_argument = "webhook"
