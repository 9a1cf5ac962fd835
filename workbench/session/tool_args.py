"""A tool call's arguments checked against its JSON schema before the tool runs, and the errors tools report.

Models send what they send: a number where a string belongs, "false" for false, a misspelt workload, an argument
no tool has. Each is refused here with what was expected and what came, so the model can correct itself; nothing
is coerced (bool("false") is True, which once made a draft submission final). The subset of JSON Schema the
specs use is what is checked: type, properties, required, additionalProperties, enum, items, minLength, minimum,
exclusiveMinimum, maximum.
"""

from __future__ import annotations

import json
import math
from typing import Any

from workbench.agent.conversation import ToolSpec


class ToolError(Exception):
    """A tool call the agent got wrong: reported back to it as an error result."""


class ArgumentError(ToolError):
    """Arguments that do not fit the tool's schema; the message says what was expected."""


def check_arguments(spec: ToolSpec, args: Any) -> dict[str, Any]:
    """The arguments, checked (an integer given as 3.0 becomes 3); raises ArgumentError."""
    schema = spec.input_schema
    if not isinstance(args, dict):
        raise ArgumentError(f"the arguments of {spec.name} must be a JSON object, got {_got(args)}")
    properties: dict[str, Any] = schema.get("properties", {})
    unknown = [key for key in args if key not in properties]
    if unknown and schema.get("additionalProperties") is False:
        known = ", ".join(properties) or "none"
        raise ArgumentError(f"unknown argument {unknown[0]!r} for {spec.name} (its arguments: {known})")
    for key in schema.get("required", []):
        if key not in args:
            raise ArgumentError(f"missing argument {key!r} for {spec.name}")
    return {key: check_value(key, properties[key], value) if key in properties else value
            for key, value in args.items()}  # fmt: skip


def check_value(where: str, schema: dict[str, Any], value: Any) -> Any:
    """One value against its schema; `where` names it in the message."""
    kind = schema.get("type")
    if kind == "array":
        if not isinstance(value, list):
            raise ArgumentError(f"{where}: expected {describe(schema)}, got {_got(value)}")
        items = schema.get("items", {})
        try:
            return [check_value(f"{where}[{i}]", items, item) for i, item in enumerate(value)]
        except ArgumentError:  # the whole list in the message: the model rewrites the list, not one item
            raise ArgumentError(f"{where}: expected {describe(schema)}, got {_got(value)}") from None
    value = _typed(where, schema, value)
    if "enum" in schema and value not in schema["enum"]:
        raise ArgumentError(f"{where}: expected {describe(schema)}, got {_got(value)}")
    if _out_of_range(schema, value):
        raise ArgumentError(f"{where}: expected {describe(schema)}, got {_got(value)}")
    return value


def _typed(where: str, schema: dict[str, Any], value: Any) -> Any:
    kind = schema.get("type")
    fits = {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),  # "false", 0 and 1 are not booleans
        "number": isinstance(value, (int, float)) and not isinstance(value, bool)
        and math.isfinite(value),
        "integer": isinstance(value, int) and not isinstance(value, bool)
        or isinstance(value, float) and value.is_integer(),
        "object": isinstance(value, dict),
    }.get(str(kind), True)  # fmt: skip
    if not fits:
        raise ArgumentError(f"{where}: expected {describe(schema)}, got {_got(value)}")
    return int(value) if kind == "integer" else value


def _out_of_range(schema: dict[str, Any], value: Any) -> bool:
    if isinstance(value, str):
        return len(value) < schema.get("minLength", 0)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return True
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return True
        return "maximum" in schema and value > schema["maximum"]
    return False


def describe(schema: dict[str, Any]) -> str:
    """What a schema asks for, in words: 'a list of these names: ["tiny", "large"]'."""
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items", {})
        if "enum" in items:
            return f"a list of these names: {_json(items['enum'])}"
        return f"a list of {_plural(describe(items))}"
    if "enum" in schema:
        return f"one of these names: {_json(schema['enum'])}"
    if kind == "boolean":
        return "a boolean (true or false, not a string)"
    if kind == "string":
        return "a non-empty string" if schema.get("minLength", 0) > 0 else "a string"
    if kind in ("number", "integer"):
        bounds = []
        if "minimum" in schema:
            bounds.append(f"at least {schema['minimum']:g}")
        if "exclusiveMinimum" in schema:
            bounds.append(f"above {schema['exclusiveMinimum']:g}")
        if "maximum" in schema:
            bounds.append(f"at most {schema['maximum']:g}")
        noun = "an integer" if kind == "integer" else "a number"
        return f"{noun} {' and '.join(bounds)}" if bounds else noun
    return f"a {kind}" if kind else "a value"


def _plural(description: str) -> str:
    for article in ("an ", "a "):
        if description.startswith(article):
            return description[len(article) :].replace("string", "strings", 1).replace("number", "numbers", 1)
    return description


_TYPE_NAMES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "list", dict: "object"}


def _got(value: Any) -> str:
    """A value as the model sent it, in JSON and briefly: the string "false", the integer 5."""
    if value is None:
        return "null"
    shown = _json(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"the {_TYPE_NAMES.get(type(value), type(value).__name__)} {shown}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)
