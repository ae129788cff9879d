"""The REST doors of the webhook operations (§17): `/api/v1/webhooks` lists (GET) and creates (POST),
`/api/v1/webhooks/{id}` deletes (DELETE). The core's OperationView serves each, one operation per method."""
from forum.api.views import OperationView
from parley_site.errors import MethodNotAllowed
from webhooks import operations


class MethodOperationView(OperationView):
    """One route, an operation per HTTP method (`operations`)."""

    operations = {}

    @property
    def operation(self):
        # Before a handler refuses a method the route does not take, authentication asks which operation
        # it is: the route's first answers for it.
        method = getattr(getattr(self, "request", None), "method", None)
        return self.operations.get(method) or next(iter(self.operations.values()))

    @property
    def allowed_methods(self):
        return list(self.operations)

    def serve(self, request, ref=None):
        if request.method not in self.operations:
            raise MethodNotAllowed(request.method)
        return self.answer(request, ref)

    get = post = delete = serve


class WebhooksView(MethodOperationView):
    operations = {"GET": operations.LIST_WEBHOOKS, "POST": operations.CREATE_WEBHOOK}


class WebhookView(MethodOperationView):
    operations = {"DELETE": operations.DELETE_WEBHOOK}
    path_argument = "webhook"
