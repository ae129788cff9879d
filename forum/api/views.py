"""REST doors: each view parses the request, calls one operation, renders its answer. Nothing else.

A route names its operation (forum/api/urls.py: `ReadView.as_view(operation=operations.READ_THREAD, ...)`),
so a reader goes from the URL to the operation to the service it runs by name. GET routes are ReadViews,
POST routes WriteViews; OpenAPI describes each from its operation's own schemas (OperationSchema)."""
import inspect

from django.http import HttpResponseBase
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from forum.dispatch import Operation, call
from forum.held import HeldResponse
from forum.limits import limit
from forum.wire import ERROR_SCHEMA
from parley_site.doors import Door
from parley_site.errors import MethodNotAllowed, NotFound, RequestTooLarge
from parley_site.exception_handler import refusal_response
from parley_site.jsonbody import declared_length, parse_json, require_json_media_type
from parley_site.shapes import Ref

PATH_OBJECTS = {"thread": ("th", "thread"), "message": ("msg", "message"), "claim": ("cl", "claim"),
                "webhook": ("wh", "webhook"), "room": ("rm", "room"), "identity": ("", "identity")}
ERROR_STATUSES = {
    "GET": [400, 401, 403, 404, 503],
    "POST": [400, 401, 403, 404, 409, 413, 429, 503],
    "DELETE": [400, 401, 403, 404, 413, 429, 503],
    "PATCH": [400, 401, 403, 404, 409, 413, 429, 503],
}


class OperationSchema(AutoSchema):
    """The operation's own schemas on its route, so OpenAPI shows exactly what the server enforces."""

    # DRF types `view` as any APIView; this inspector describes OperationView routes only.
    view: "OperationView"  # type: ignore[override]

    def get_operation_id(self):
        return self.view.operation_id or self.view.operation.name

    def get_summary(self):
        return self.view.operation.name

    # drf-spectacular's AutoSchema, the base that calls it, takes no arguments (DRF's own inspector does).
    def get_description(self):  # type: ignore[override]
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
        responses: dict[int, dict | OpenApiResponse] = {operation.status: operation.output_schema}
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
            described = f"{prefix}_<n> or <n>" if prefix else "a line's identity, or `me`"
            parameters.append(OpenApiParameter("ref", str, OpenApiParameter.PATH, description=described))
        if not view.operation.read_only:
            parameters.append(OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                                               description="Retry safely: the same key replays the first answer."))
        return parameters


def rest_answer(result):
    """A call's (status, body) as DRF renders it; a response a view built itself (bytes, metadata) as it is."""
    if isinstance(result, HttpResponseBase):
        return result
    status, body = result
    return Response(body, status=status)


REST = Door("rest", refuse=refusal_response, answer=rest_answer)


class OperationView(APIView):
    # Given by the route: as_view() takes only what the class already has, so None stands in for it here.
    operation: Operation = None  # type: ignore[assignment]
    path_argument: str | None = None  # the operation argument a URL path segment fills in
    operation_id: str | None = None  # OpenAPI's, where one operation has two routes
    schema = OperationSchema()

    def get_authenticators(self):
        return super().get_authenticators() if self.operation.needs_actor else []

    def get_permissions(self):
        return super().get_permissions() if self.operation.needs_actor else []

    def dispatch(self, request, *args, **kwargs):
        """DRF's dispatch, but its checks and the handler run as one call at the REST door
        (parley_site.doors), so that a refusal at the door (the token, the size, the method, the JSON, the
        path) counts as the operation's own do. A call that holds answers once it ends (HeldResponse)."""
        self.args, self.kwargs = args, kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request, self.headers = request, self.default_response_headers
        answer = REST.run(self.operation.name, self.exchange, request, *args, **kwargs)
        response = HeldResponse(rendered(answer)) if inspect.isawaitable(answer) else answer
        # DRF finalizes any HttpResponseBase (it asserts no more); its stub asks for a Response.
        self.response = self.finalize_response(request, response, *args, **kwargs)  # type: ignore[arg-type]
        return self.response

    def exchange(self, request, *args, **kwargs):
        self.initial(request, *args, **kwargs)
        method = request.method.lower()
        handler = getattr(self, method, None) if method in self.http_method_names else None
        if handler is None:
            raise MethodNotAllowed(request.method)  # DRF adds the Allow header
        return handler(request, *args, **kwargs)

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
        # Called only on a route whose path fills in an argument (arguments(), or a view's own route).
        prefix, label = PATH_OBJECTS[self.path_argument]  # type: ignore[index]
        number = Ref(prefix).parse(ref)
        if number is None:
            raise NotFound(label, ref)  # §14.1: a malformed id in a path is not_found
        return number

    def answer(self, request, ref=None):
        key = None if self.operation.read_only else request.headers.get("Idempotency-Key")
        return call(self.operation, request.auth, self.arguments(request, ref), key)


class MethodOperationView(OperationView):
    """One route, an operation per HTTP method (`operations`)."""

    operations: dict[str, Operation] = {}

    @property
    def operation(self):  # type: ignore[override]  # the route's operation, chosen by the request's method
        # Before a handler refuses a method the route does not take, authentication asks which operation
        # it is: the route's first answers for it.
        method = getattr(getattr(self, "request", None), "method", None)
        return self.operations.get(method or "") or next(iter(self.operations.values()))

    @property
    def allowed_methods(self):
        return list(self.operations)

    def serve(self, request, ref=None):
        if request.method not in self.operations:
            raise MethodNotAllowed(request.method)
        return self.answer(request, ref)

    get = post = patch = delete = serve


class ReadView(OperationView):
    def get(self, request, ref=None):
        return self.answer(request, ref)


class WriteView(OperationView):
    def post(self, request, ref=None):
        return self.answer(request, ref)


async def rendered(answer):
    """A held call's answer, rendered as DRF renders every other (HeldResponse completes with it)."""
    response = await answer
    if isinstance(response, Response):
        response.accepted_renderer, response.accepted_media_type = JSONRenderer(), "application/json"
        response.renderer_context = {}  # type: ignore[attr-defined]  # set by DRF's views, unknown to its stub
        response.render()
    return response
