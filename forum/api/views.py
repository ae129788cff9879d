"""REST doors: each view parses the request, calls one operation, renders its answer. Nothing else.

A route names its operation (forum/api/urls.py: `ReadView.as_view(operation=operations.READ_THREAD, ...)`),
so a reader goes from the URL to the operation to the service it runs by name. GET routes are ReadViews,
POST routes WriteViews; OpenAPI describes each from its operation's own schemas (OperationSchema)."""
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from forum.held import Held, HeldResponse
from forum.limits import limit
from forum.dispatch import call
from forum.wire import ERROR_SCHEMA
from parley_site import metrics
from parley_site.errors import NotFound, ParleyError, RequestTooLarge
from parley_site.jsonbody import declared_length, parse_json, require_json_media_type
from parley_site.shapes import Ref

PATH_OBJECTS = {"thread": ("th", "thread"), "message": ("msg", "message"), "claim": ("cl", "claim"),
                "webhook": ("wh", "webhook")}
ERROR_STATUSES = {
    "GET": [400, 401, 403, 404, 503],
    "POST": [400, 401, 403, 404, 409, 413, 429, 503],
    "DELETE": [400, 401, 403, 404, 413, 429, 503],
}


class OperationSchema(AutoSchema):
    """The operation's own schemas on its route, so OpenAPI shows exactly what the server enforces."""

    def get_operation_id(self):
        return self.view.operation_id or self.view.operation.name

    def get_summary(self):
        return self.view.operation.name

    def get_description(self):
        return self.view.operation.description_text

    def get_auth(self):
        return super().get_auth() if self.view.operation.needs_actor else []

    def get_request_serializer(self):
        """A POST's JSON body: the operation's input but the argument its path fills in; none if that
        leaves nothing (confirm)."""
        if self.method == "GET":
            return None
        schema = self.view.operation.input().json_schema()
        if self.view.path_argument is not None:
            schema["properties"].pop(self.view.path_argument)
            schema["required"] = [name for name in schema.get("required", ()) if name != self.view.path_argument]
            if not schema["required"]:
                del schema["required"]
            if not schema["properties"]:
                return None
        return {"application/json": schema}

    def get_response_serializers(self):
        operation = self.view.operation
        responses = {operation.status: operation.output_schema}
        if operation.needs_actor:
            responses.update({code: OpenApiResponse(response=ERROR_SCHEMA, description="a refusal (§13)")
                              for code in ERROR_STATUSES[self.method]})
        return responses

    def get_override_parameters(self):
        view, parameters = self.view, []
        if self.method == "GET":
            properties = view.operation.input().json_schema()["properties"]
            parameters = [OpenApiParameter(name, type=schema, location=OpenApiParameter.QUERY,
                                           description=schema.get("description", ""))
                          for name, schema in properties.items() if name != view.path_argument]
        if view.path_argument:
            prefix = PATH_OBJECTS[view.path_argument][0]
            parameters.append(OpenApiParameter("ref", str, OpenApiParameter.PATH, description=f"{prefix}_<n> or <n>"))
        if not view.operation.read_only:
            parameters.append(OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                                               description="Retry safely: the same key replays the first answer."))
        return parameters


class OperationView(APIView):
    operation = None  # a forum.dispatch.Operation, given by the route
    path_argument = None  # the operation argument a URL path segment fills in
    operation_id = None  # OpenAPI's, where one operation has two routes
    schema = OperationSchema()

    def get_authenticators(self):
        return super().get_authenticators() if self.operation.needs_actor else []

    def get_permissions(self):
        return super().get_permissions() if self.operation.needs_actor else []
    reached_operation = False  # from then on forum.dispatch.call counts this request

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # §13: token_invalid first, then the size of the request.
        if declared_length(request.META) > limit("request_max_bytes"):
            raise RequestTooLarge("request_max_bytes", limit("request_max_bytes"))

    def arguments(self, request, ref):
        if request.method == "GET":
            arguments = {name: request.query_params.get(name) for name in request.query_params}
        else:
            if declared_length(request.META):
                require_json_media_type(request.content_type)
            raw = request._request.body
            arguments = parse_json(raw) if raw else {}
        if self.path_argument:
            value = self.path_value(ref)
            if isinstance(arguments, dict):
                arguments = {**arguments, self.path_argument: value}
        return arguments

    def path_value(self, ref):
        """The operation's argument a URL path segment names."""
        prefix, label = PATH_OBJECTS[self.path_argument]
        number = Ref(prefix).parse(ref)
        if number is None:
            raise NotFound(label, ref)  # §14.1: a malformed id in a path is not_found
        return number

    def answer(self, request, ref=None):
        key = None if self.operation.read_only else request.headers.get("Idempotency-Key")
        arguments = self.arguments(request, ref)
        self.reached_operation = True
        result = call(self.operation, request.auth, arguments, key, door="rest")
        if isinstance(result, Held):
            return HeldResponse(result.then(rendered))
        status, body = result
        return Response(body, status=status)

    def handle_exception(self, exc):
        if not self.reached_operation:  # refused at the door: its token, size, method, JSON or path
            metrics.observe(self.operation.name, "rest", metrics.outcome_of(exc))
        return super().handle_exception(exc)


class ReadView(OperationView):
    def get(self, request, ref=None):
        return self.answer(request, ref)


class WriteView(OperationView):
    def post(self, request, ref=None):
        return self.answer(request, ref)


def rendered(outcome):
    """A held call's answer as this door renders every other: (status, JSON bytes, headers)."""
    if isinstance(outcome, ParleyError):
        return outcome.status, JSONRenderer().render(outcome.as_body()), outcome.headers()
    status, body = outcome
    return status, JSONRenderer().render(body), {}
