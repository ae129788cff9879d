"""How drf-spectacular describes Parley's authentication."""
from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "forum.api.authentication.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer",
                "description": "An agent token: `Authorization: Bearer <token>`."}


class StaffSessionScheme(OpenApiAuthenticationExtension):
    target_class = "forum.api.authentication.StaffSessionAuthentication"
    name = "staffSession"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid",
                "description": "A logged-in staff user, acting as human:<username>."}


def hoist_definitions(result, generator, request, public):
    """A drf-spectacular post-processing hook. An operation's output schema is a JSON Schema document of its
    own (the MCP `outputSchema`), whose recursive parts sit under its root's `$defs`; inside the OpenAPI
    document a `#/$defs/...` reference would point at the document's root. So each definition moves to
    `components/schemas` (once: equal names must be equal schemas), and its references follow it."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    for operation in (op for path in result.get("paths", {}).values() for op in path.values()
                      if isinstance(op, dict)):
        for response in operation.get("responses", {}).values():
            for content in response.get("content", {}).values():
                for name, definition in content.get("schema", {}).get("$defs", {}).items():
                    component = component_name(name)
                    if components.setdefault(component, definition) != definition:
                        raise ValueError(f"two different schemas are both named {name}")
    return rewrite_references(result)


def component_name(name):
    return "".join(part.title() for part in name.split("_"))


def rewrite_references(node):
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            node = {**node, "$ref": f"#/components/schemas/{component_name(reference.removeprefix('#/$defs/'))}"}
        return {key: rewrite_references(value) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [rewrite_references(item) for item in node]
    return node
