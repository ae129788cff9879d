"""A small declarative schema: each shape validates input and describes itself as JSON Schema.

One definition drives both, so what an agent reads (OpenAPI, MCP `inputSchema`) is what the server
enforces. Every violation is `invalid_body` with `detail.field` as a dotted path (Parley v1 §4)."""
import re
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from parley_site.errors import InvalidBody


def join(path, name):
    return f"{path}.{name}" if path else name


def check_text(value, path):
    # JSON can carry lone surrogates and NUL, which no database column can store.
    if "\x00" in value:
        raise InvalidBody(f"{path or 'value'} contains a NUL character", field=path)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidBody(f"{path or 'value'} is not valid Unicode (lone surrogate)", field=path) from None


class Shape:
    description = None

    def validate(self, value, path=""):
        raise NotImplementedError

    def json_schema(self):
        raise NotImplementedError

    def with_description(self, schema):
        if self.description:
            schema["description"] = self.description
        return schema


class Str(Shape):
    def __init__(self, min_len=0, max_len=None, pattern=None, enum=None, strip=False, description=None):
        self.min_len, self.max_len, self.enum, self.strip = min_len, max_len, enum, strip
        self.pattern = re.compile(pattern) if pattern else None
        self.description = description

    def validate(self, value, path=""):
        if not isinstance(value, str):
            raise InvalidBody(f"{path} must be a string", field=path)
        check_text(value, path)
        if self.strip:
            value = value.strip()
        if len(value) < self.min_len:
            raise InvalidBody(f"{path} must be at least {self.min_len} characters", field=path)
        if self.max_len is not None and len(value) > self.max_len:
            raise InvalidBody(f"{path} must be at most {self.max_len} characters", field=path,
                              max_chars=self.max_len, chars=len(value))
        if self.enum is not None and value not in self.enum:
            raise InvalidBody(f"{path} must be one of {', '.join(self.enum)}", field=path)
        if self.pattern and not self.pattern.fullmatch(value):
            raise InvalidBody(f"{path} must match {self.pattern.pattern}", field=path)
        return value

    def json_schema(self):
        schema: dict = {"type": "string"}
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.min_len:
            schema["minLength"] = self.min_len
        if self.max_len is not None:
            schema["maxLength"] = self.max_len
        if self.pattern:
            schema["pattern"] = f"^(?:{self.pattern.pattern})$"  # JSON Schema patterns are not anchored
        return self.with_description(schema)


class Int(Shape):
    """An integer; a string of digits is accepted too, as query parameters only come as strings."""

    def __init__(self, minimum=None, maximum=None, description=None):
        self.minimum, self.maximum, self.description = minimum, maximum, description

    def validate(self, value, path=""):
        if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,18}", value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidBody(f"{path} must be an integer", field=path)
        if self.minimum is not None and value < self.minimum:
            raise InvalidBody(f"{path} must be at least {self.minimum}", field=path)
        if self.maximum is not None and value > self.maximum:
            raise InvalidBody(f"{path} must be at most {self.maximum}", field=path)
        return value

    def json_schema(self):
        schema = {"type": "integer"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return self.with_description(schema)


class Bool(Shape):
    def __init__(self, description=None):
        self.description = description

    def validate(self, value, path=""):
        if value in ("true", "false"):
            return value == "true"
        if not isinstance(value, bool):
            raise InvalidBody(f"{path} must be true or false", field=path)
        return value

    def json_schema(self):
        return self.with_description({"type": "boolean"})


class Ref(Shape):
    """An object id: the opaque key `<prefix>_<n>`, or the bare number as JSON integer or digit string."""

    def __init__(self, prefix, description=None):
        self.prefix, self.description = prefix, description
        self.regex = re.compile(rf"(?:{prefix}_)?([1-9][0-9]{{0,17}})")

    def parse(self, value):
        if isinstance(value, int) and not isinstance(value, bool):
            return value if 0 < value < 10**18 else None
        if isinstance(value, str):
            match = self.regex.fullmatch(value)
            return int(match.group(1)) if match else None
        return None

    def validate(self, value, path=""):
        number = self.parse(value)
        if number is None:
            raise InvalidBody(f"{path} must be {self.prefix}_<n> or a positive number", field=path)
        return number

    def json_schema(self):
        return self.with_description({"anyOf": [
            {"type": "string", "pattern": self.regex.pattern.replace("(?:", "^(?:", 1) + "$"},
            {"type": "integer", "minimum": 1},
        ]})


TIME_PATTERN = (r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})T(?P<time>[0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.(?P<fraction>[0-9]+))?"
                r"(?:Z|(?P<sign>[+-])(?P<hours>[0-9]{2}):(?P<minutes>[0-9]{2}))")
# §14.1 "Times": the offsets in use on Earth. Wider ones do not fit PostgreSQL's timestamptz (+16:00 was a
# DataError there) and may push the instant out of Python's years (an OverflowError on SQLite).
OFFSET_MIN, OFFSET_MAX = timedelta(hours=-12), timedelta(hours=14)


def _offset(match):
    """The offset of a matched time, or None when its minutes or its size are out of range."""
    if match["sign"] is None:
        return timedelta(0)
    size = timedelta(hours=int(match["hours"]), minutes=int(match["minutes"]))
    offset = -size if match["sign"] == "-" else size
    return offset if int(match["minutes"]) < 60 and OFFSET_MIN <= offset <= OFFSET_MAX else None


def parse_time(text):
    """An aware UTC datetime for a §14.1 time, or None when `text` is not one: uppercase T and Z, seconds
    00-59, an offset from -12:00 to +14:00, and a year 1-9999 once converted to UTC."""
    match = re.fullmatch(TIME_PATTERN, text)
    offset = _offset(match) if match else None
    if match is None or offset is None:
        return None
    # Python keeps microseconds: a longer fraction is cut, as PostgreSQL would round it anyway.
    microseconds = (match["fraction"] or "").ljust(6, "0")[:6]
    try:
        local = datetime.fromisoformat(f"{match['date']}T{match['time']}.{microseconds}")
        return local.replace(tzinfo=dt_timezone(offset)).astimezone(dt_timezone.utc)
    except (ValueError, OverflowError):  # no such day, hour or second; a year outside 1-9999 in UTC
        return None


class Timestamp(Shape):
    """A §14.1 time: RFC 3339 with an explicit offset, answered as an aware UTC datetime."""

    def __init__(self, description=None):
        self.description = description

    def validate(self, value, path=""):
        parsed = parse_time(value) if isinstance(value, str) else None
        if parsed is None:
            raise InvalidBody(f"{path} must be a time YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM), offset "
                              "-12:00 to +14:00, year 1-9999 in UTC", field=path)
        return parsed

    def json_schema(self):
        # Group names are Python's syntax only; the schema's regex must read the same in every dialect.
        pattern = re.sub(r"\(\?P<\w+>", "(?:", TIME_PATTERN)
        return self.with_description({"type": "string", "format": "date-time", "pattern": f"^{pattern}$"})


class List(Shape):
    def __init__(self, item, min_items=0, max_items=None, description=None):
        self.item, self.min_items, self.max_items, self.description = item, min_items, max_items, description

    def validate(self, value, path=""):
        if not isinstance(value, list):
            raise InvalidBody(f"{path} must be a list", field=path)
        if len(value) < self.min_items:
            raise InvalidBody(f"{path} needs at least {self.min_items} item(s)", field=path)
        if self.max_items is not None and len(value) > self.max_items:
            raise InvalidBody(f"{path} takes at most {self.max_items} items", field=path)
        return [self.item.validate(item, f"{path}[{index}]") for index, item in enumerate(value)]

    def json_schema(self):
        schema = {"type": "array", "items": self.item.json_schema()}
        if self.min_items:
            schema["minItems"] = self.min_items
        if self.max_items is not None:
            schema["maxItems"] = self.max_items
        return self.with_description(schema)


class Obj(Shape):
    """A JSON object that refuses unknown fields. `ignored` names fields the server sets itself: a client
    that sends them is not refused, their values are dropped (Parley v1 §4). Its schema leaves them out:
    a field no client should send has no place among the arguments a model reads."""

    def __init__(self, fields, required=(), ignored=(), description=None):
        self.fields, self.required, self.ignored = fields, set(required), set(ignored)
        self.description = description

    def validate(self, value, path=""):
        if not isinstance(value, dict):
            raise InvalidBody(f"{path or 'the body'} must be a JSON object", field=path or None)
        cleaned = {}
        for name, item in value.items():
            if name in self.ignored:
                continue
            shape = self.fields.get(name)
            if shape is None:
                raise InvalidBody(f"unknown field {join(path, name)}", field=join(path, name))
            cleaned[name] = shape.validate(item, join(path, name))
        for name in sorted(self.required - cleaned.keys()):
            raise InvalidBody(f"{join(path, name)} is required", field=join(path, name))
        return cleaned

    def json_schema(self):
        schema = {
            "type": "object",
            "properties": {name: shape.json_schema() for name, shape in self.fields.items()},
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = sorted(self.required)
        return self.with_description(schema)
