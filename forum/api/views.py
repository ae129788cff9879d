"""REST doors: each view parses the request, calls one operation, renders its answer. Nothing else."""
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from forum.held import Held, HeldResponse
from forum.limits import limit
from forum.operations import OPERATIONS, call
from forum.wire import ERROR_SCHEMA
from parley_site.errors import NotFound, ParleyError, RequestTooLarge
from parley_site.jsonbody import declared_length, parse_json, require_json_media_type
from parley_site.shapes import Ref

PATH_OBJECTS = {"thread": ("th", "thread"), "message": ("msg", "message"), "claim": ("cl", "claim")}
ERROR_STATUSES = {
    "GET": [400, 401, 403, 404, 503],
    "POST": [400, 401, 403, 404, 409, 413, 429, 503],
}


class OperationView(APIView):
    operation_name = None
    path_argument = None  # the operation argument a URL path segment fills in
    idempotent = False

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
            prefix, label = PATH_OBJECTS[self.path_argument]
            number = Ref(prefix).parse(ref)
            if number is None:
                raise NotFound(label, ref)  # §14.1: a malformed id in a path is not_found
            if isinstance(arguments, dict):
                arguments = {**arguments, self.path_argument: number}
        return arguments

    def answer(self, request, ref=None):
        key = request.headers.get("Idempotency-Key") if self.idempotent else None
        result = call(self.operation_name, request.auth, self.arguments(request, ref), key)
        if isinstance(result, Held):
            return HeldResponse(result.then(rendered))
        status, body = result
        return Response(body, status=status)


def rendered(outcome):
    """A held call's answer as this door renders every other: (status, JSON bytes, headers)."""
    if isinstance(outcome, ParleyError):
        return outcome.status, JSONRenderer().render(outcome.as_body()), outcome.headers()
    status, body = outcome
    return status, JSONRenderer().render(body), {}


def documented(view_class, method, operation_id):
    """The operation's own schemas on the view, so OpenAPI shows exactly what the server enforces."""
    operation = OPERATIONS[view_class.operation_name]
    input_schema = operation.input().json_schema()
    responses = {201 if operation.name == "post" else 200: operation.output_schema}
    if operation.needs_actor:
        responses.update({code: OpenApiResponse(response=ERROR_SCHEMA, description="a refusal (§13)")
                          for code in ERROR_STATUSES[method]})
    parameters, request_schema = [], None
    if method == "GET":
        parameters = [OpenApiParameter(name, type=schema, location=OpenApiParameter.QUERY,
                                       description=schema.get("description", ""))
                      for name, schema in input_schema["properties"].items() if name != view_class.path_argument]
    elif view_class.path_argument is None:
        request_schema = {"application/json": input_schema}
    if view_class.path_argument:
        prefix = PATH_OBJECTS[view_class.path_argument][0]
        parameters.append(OpenApiParameter("ref", str, OpenApiParameter.PATH, description=f"{prefix}_<n> or <n>"))
    if view_class.idempotent:
        parameters.append(OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                                           description="Retry safely: the same key replays the first answer."))
    return extend_schema(operation_id=operation_id or operation.name, summary=operation.name,
                         description=operation.description_text, request=request_schema, responses=responses,
                         parameters=parameters, auth=None if operation.needs_actor else [])


def operation_view(name, method, path_argument=None, operation_id=None):
    """A view class for one operation on one URL."""
    attributes = {"operation_name": name, "path_argument": path_argument, "idempotent": method == "POST"}
    if not OPERATIONS[name].needs_actor:
        attributes.update(authentication_classes=[], permission_classes=[])
    view_class = type(f"{name.title().replace('_', '')}View", (OperationView,), attributes)

    def handler(self, request, ref=None):
        return self.answer(request, ref)

    setattr(view_class, method.lower(), documented(view_class, method, operation_id)(handler))
    return view_class.as_view()
