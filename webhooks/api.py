"""The REST doors of the webhook operations (§17): `/api/v1/webhooks` lists (GET) and creates (POST),
`/api/v1/webhooks/{id}` deletes (DELETE). The core's OperationView serves each, one operation per method."""
from forum.api.views import MethodOperationView
from webhooks import operations


class WebhooksView(MethodOperationView):
    operations = {"GET": operations.LIST_WEBHOOKS, "POST": operations.CREATE_WEBHOOK}


class WebhookView(MethodOperationView):
    operations = {"DELETE": operations.DELETE_WEBHOOK}
    path_argument = "webhook"
