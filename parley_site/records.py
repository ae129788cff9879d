"""The JSON objects of answers, each declared once: its fields' names, types, whether they may be null and
what they mean. Both the rendering (an object of the code -> JSON) and the JSON Schema (OpenAPI, MCP
`outputSchema`) come from the one declaration, so what a client validates against is what it is sent, as
parley_site.shapes does for what comes in.

Every object a schema here describes is closed (`additionalProperties: false`) with every key typed, since
SDK clients validate results against a tool's `outputSchema`. A value that may be null is written
`anyOf` [its type, null], never as a type array (`["string", "null"]`): clients that map tool schemas onto a
single-type dialect (Gemini's OpenAPI subset, for one) reject or drop the array, and the MCP Inspector's
portability check warns on it.

Written here rather than with pydantic (which the MCP SDK brings): its models would render times, keys and
blank values otherwise than the wire has always answered them, and its schemas would add titles and `$ref`s
that every client and the OpenAPI document would then read; parley_site.shapes, for input, is this
module's sibling."""
from operator import attrgetter, itemgetter

NULL = {"type": "null"}


def strict(properties, optional=None, **extra):
    """An object with exactly these properties, all required, plus `optional` ones that may be absent."""
    return {"type": "object", "properties": {**properties, **(optional or {})}, "required": list(properties),
            "additionalProperties": False, **extra}


def key(prefix, number):
    """An object's opaque id on the wire, `<prefix>_<n>`."""
    return f"{prefix}_{number}" if number is not None else None


def stamp(moment):
    """A time on the wire: RFC 3339 in UTC, with Z."""
    return moment.isoformat().replace("+00:00", "Z") if moment else None


class Text:
    """A string, as it is stored. `format` names a string that holds a time or the like already."""

    def __init__(self, *, enum=None, pattern=None, format=None):
        given = {"enum": enum, "pattern": pattern, "format": format}
        self.constraints = {name: value for name, value in given.items() if value is not None}

    def schema(self):
        return {"type": "string", **self.constraints}

    render = None  # the value as it is


class Time:
    """A datetime, rendered as §14.1 writes times."""

    def schema(self):
        return {"type": "string", "format": "date-time"}

    render = staticmethod(stamp)


class Key:
    """An object's id: the number stored, `<prefix>_<n>` on the wire."""

    def __init__(self, prefix):
        self.prefix = prefix

    def schema(self):
        return {"type": "string", "pattern": f"^{self.prefix}_[0-9]+$"}

    def render(self, number):
        return key(self.prefix, number)


class Integer:
    def __init__(self, *, minimum=None, maximum=None):
        given = {"minimum": minimum, "maximum": maximum}
        self.constraints = {name: value for name, value in given.items() if value is not None}

    def schema(self):
        return {"type": "integer", **self.constraints}

    render = None


class Boolean:
    def schema(self):
        return {"type": "boolean"}

    render = None


class Json:
    """A value stored as JSON already (a message's provenance, a claim's proofs), answered as it is: its key
    order is the sender's. `schema` says what it holds."""

    def __init__(self, schema):
        self._schema = schema

    def schema(self):
        return dict(self._schema)

    render = None


class ListOf:
    def __init__(self, item):
        self.item = item

    def schema(self):
        return {"type": "array", "items": self.item.schema()}

    def render(self, values):
        return list(values) if self.item.render is None else [self.item.render(value) for value in values]


class Field:
    """One key of a Record: its type, where its value comes from (an attribute, or a key of a mapping, of
    the field's name unless `source` names another, or a function of the rendered object), whether it may
    be null (an absent value, None or a blank string, is then null), or left out when absent (`optional`),
    and what it means."""

    def __init__(self, kind, source=None, *, nullable=False, optional=False, description=None):
        self.kind, self.source, self.nullable, self.optional = kind, source, nullable, optional
        self.description = description

    def reader(self, name, keyed):
        source = name if self.source is None else self.source
        if callable(source):
            return source
        return itemgetter(source) if keyed else attrgetter(source)

    def schema(self):
        schema = self.kind.schema()
        if self.nullable:
            schema = {"anyOf": [schema, NULL]}
        if self.description:
            schema["description"] = self.description
        return schema


class Record:
    """A JSON object of fixed keys, in the order declared. It renders an object's attributes, or with
    `keyed` a mapping's keys; it is itself a field's type, for an object inside another."""

    def __init__(self, fields, *, keyed=False, description=None):
        self.fields, self.description = fields, description
        # Per field, what rendering needs, looked up once: answers render many records.
        self._steps = [(name, field.reader(name, keyed), field.kind.render, field.nullable or field.optional,
                        field.optional) for name, field in fields.items()]

    def render(self, source):
        rendered: dict = {}
        for name, read, convert, blank_is_absent, optional in self._steps:
            value = read(source)
            if value is None or (blank_is_absent and value == ""):
                if not optional:
                    rendered[name] = None
                continue
            rendered[name] = value if convert is None else convert(value)
        return rendered

    def properties(self):
        """The schemas of the fields that are always there."""
        return {name: field.schema() for name, field in self.fields.items() if not field.optional}

    def optional_properties(self):
        return {name: field.schema() for name, field in self.fields.items() if field.optional}

    def schema(self, optional=None):
        """The object's schema; `optional`: properties that others (a profile) may add to it."""
        return strict(self.properties(), {**self.optional_properties(), **(optional or {})},
                      **({"description": self.description} if self.description else {}))
