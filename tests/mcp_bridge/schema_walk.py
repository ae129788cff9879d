"""Walks JSON Schemas for what a model or an SDK client cannot read from them: an object whose keys are not
all declared, a value without a type, a type array (`["string", "null"]`), which clients that map schemas
onto a single-type dialect reject (the MCP Inspector's portability check warns on it)."""


def typed(schema):
    """Whether a schema says what type its value has (itself, or each of its alternatives)."""
    if "type" in schema or "const" in schema or "$ref" in schema:
        return True
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    return bool(alternatives) and all(typed(branch) for branch in alternatives)


def untyped_or_open(schema, path="$"):
    """The paths in `schema` of values without a type and of objects that leave their keys undeclared."""
    problems = [] if typed(schema) else [f"{path}: no type"]
    types = schema.get("type", [])
    if "object" in (types if isinstance(types, list) else [types]):
        if schema.get("additionalProperties") is not False or "properties" not in schema:
            problems.append(f"{path}: an object that does not declare every key")
    for name, child in schema.get("properties", {}).items():
        problems += untyped_or_open(child, f"{path}.{name}")
    for keyword in ("anyOf", "oneOf"):
        for index, child in enumerate(schema.get(keyword, [])):
            problems += untyped_or_open(child, f"{path}|{index}")
    if isinstance(schema.get("items"), dict):
        problems += untyped_or_open(schema["items"], f"{path}[]")
    for name, child in schema.get("$defs", {}).items():
        problems += untyped_or_open(child, f"{path}#{name}")
    return problems


def undescribed(schema, path="$"):
    """The paths of arguments (properties, at any depth) that have no description."""
    problems = []
    for name, child in schema.get("properties", {}).items():
        if not child.get("description"):
            problems.append(f"{path}.{name}")
        problems += undescribed(child, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        problems += undescribed(schema["items"], f"{path}[]")
    return problems


def type_arrays(node, path="$"):
    """The paths, anywhere in a document, of a `type` that is an array."""
    if isinstance(node, list):
        return [found for index, item in enumerate(node) for found in type_arrays(item, f"{path}[{index}]")]
    if not isinstance(node, dict):
        return []
    here = [path] if isinstance(node.get("type"), list) else []
    return here + [found for name, child in node.items() for found in type_arrays(child, f"{path}.{name}")]
