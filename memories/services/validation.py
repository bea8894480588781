"""The rules of a memory's fields, in one place for every way a memory comes in: the API
(memories.api.serializers wraps them), the admin's form and the import of an export.

Plain Python, no HTTP: the input is JSON as parsed (dicts, lists, strings, numbers), the output
the cleaned values, and every broken rule is a `ValidationFailed` naming the field (`tags.1` for
an item of a list) with what is allowed. The messages are the ones the API has always answered.

`MEMORY_FIELD_RULES` is also what the API's serializer builds its fields from, so the OpenAPI
document describes exactly these rules.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from django.utils import timezone

from memories.emotions import emotion_canonical, known_emotion_labels
from memories.keys import key_given_or_derived
from memories.limits import (
    MAX_ATTRIBUTES_BYTES,
    MAX_ATTRIBUTES_DEPTH,
    MAX_CONTENT_CHARS,
    MAX_EMOTION_CHARS,
    MAX_ENTITIES,
    MAX_ENTITY_CHARS,
    MAX_EVENT_TIME_CHARS,
    MAX_KEY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
)
from memories.models import Category, EventPrecision, Priority, Source, Speaker
from memoryproject.core.domain import ValidationFailed, unknown_fields_refuse
from memoryproject.core.jsonbounds import json_depth
from memoryproject.core.timeinput import parse_time

# A memory key: letters, digits and _ . : -, starting with a letter or digit.
KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:\-]*$"
KEY_HELP = (
    "1–128 characters of letters, digits, _ . : -, starting with a letter or digit "
    "(snake_case recommended, e.g. preference_communication)."
)
_KEY = re.compile(KEY_PATTERN)

# Output-only fields of the memory object a client may echo back (e.g. from an export); ignored.
READ_ONLY_FIELDS = frozenset(
    {"id", "mind_id", "verified", "verified_at", "verified_by", "turn_id", "created_at", "updated_at",
     "promoted_at", "knot_id", "expired", "created"}
)  # fmt: skip

# How far in the future an imported time may lie (clocks of two servers disagree a little).
IMPORT_CLOCK_SKEW = timedelta(minutes=5)
# The parts of an exported memory that a store never takes but an import keeps.
IMPORT_TIME_FIELDS = ("created_at", "updated_at", "verified", "verified_at")

# The messages of the rules every field shares (worded as the API always answered them).
REQUIRED = "This field is required."
NOT_NULL = "This field may not be null."
NOT_BLANK = "This field may not be blank."
NOT_A_STRING = "Must be a string."
NOT_A_NUMBER = "Must be a number."
NOT_A_BOOLEAN = "Must be true or false."
NO_NULL_CHARACTERS = "Null characters are not allowed."


@dataclass(frozen=True)
class FieldRule:
    """What one field of a memory may be.

    kind: `text` (a JSON string, trimmed), `choice` (one of `choices`), `number` (finite, within
    `minimum`…`maximum`), `time` (ISO 8601 or epoch seconds), `list` (of text items of at most
    `max_chars` each, at most `max_items`), `object` (a JSON object of at most `max_bytes`).
    """

    kind: Literal["text", "choice", "number", "time", "list", "object"]
    required: bool = False  # when the whole memory is given (a store), not for an update
    null: bool = False  # JSON null allowed
    blank: bool = False  # an empty (or all-space) text allowed, cleaned to ""
    max_chars: int | None = None
    pattern: re.Pattern | None = None
    pattern_message: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    max_items: int | None = None
    max_bytes: int | None = None


def _tags_clean(tags: list[str]) -> list[str]:
    # Lower-cased, de-duplicated in first-seen order.
    return list(dict.fromkeys(tag.lower() for tag in tags))


def _entities_clean(names: list[str]) -> list[str]:
    # De-duplicated regardless of case; the first spelling stays.
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.lower(), name)
    return list(seen.values())


def _emotion_clean(label: str | None) -> str:
    if not label:
        return ""
    canonical = emotion_canonical(label)
    if canonical is None:
        raise _FieldError([f"Unknown emotion {label!r}. Known labels: {', '.join(known_emotion_labels())}."])
    return canonical


# The memory's writable fields in the order errors are reported.
MEMORY_FIELD_RULES: dict[str, FieldRule] = {
    "category": FieldRule("choice", required=True, choices=tuple(Category.values)),
    "key": FieldRule("text", max_chars=MAX_KEY_CHARS, pattern=_KEY, pattern_message=f"Invalid key. Use {KEY_HELP}"),
    "content": FieldRule("text", required=True, max_chars=MAX_CONTENT_CHARS),
    "tags": FieldRule("list", max_chars=MAX_TAG_CHARS, max_items=MAX_TAGS),
    "priority": FieldRule("choice", choices=tuple(Priority.values)),
    "source": FieldRule("choice", choices=tuple(Source.values)),
    "speaker": FieldRule("choice", choices=tuple(Speaker.values)),
    "confidence": FieldRule("number", minimum=0.0, maximum=1.0),
    "salience": FieldRule("number", minimum=0.0, maximum=1.0),
    "expires_at": FieldRule("time", null=True),
    "entities": FieldRule("list", max_chars=MAX_ENTITY_CHARS, max_items=MAX_ENTITIES),
    "event_time": FieldRule("text", null=True, max_chars=MAX_EVENT_TIME_CHARS),
    "event_precision": FieldRule("choice", null=True, choices=tuple(EventPrecision.values)),
    "emotion": FieldRule("text", null=True, blank=True, max_chars=MAX_EMOTION_CHARS),
    "attributes": FieldRule("object", max_bytes=MAX_ATTRIBUTES_BYTES),
}
# What some fields become once their rule holds.
_AFTER_RULE: dict[str, Callable[[Any], Any]] = {
    "tags": _tags_clean,
    "entities": _entities_clean,
    "emotion": _emotion_clean,
}


class _FieldError(Exception):
    """A field's problems: a list of messages, or {item index: messages} for items of a list."""

    def __init__(self, detail: list[str] | dict[int, list[str]]):
        super().__init__(detail)
        self.detail = detail


def _text(value: object, rule: FieldRule) -> str:
    if value == "" or (isinstance(value, str) and not value.strip()):
        if not rule.blank:
            raise _FieldError([NOT_BLANK])
        return ""
    if not isinstance(value, str):
        raise _FieldError([NOT_A_STRING])
    text = value.strip()
    problems = []
    if rule.pattern is not None and not rule.pattern.search(text):
        problems.append(rule.pattern_message)
    if rule.max_chars is not None and len(text) > rule.max_chars:
        problems.append(f"Ensure this field has no more than {rule.max_chars} characters.")
    if "\x00" in text:
        problems.append(NO_NULL_CHARACTERS)
    surrogate = next((char for char in text if 0xD800 <= ord(char) <= 0xDFFF), None)
    if surrogate is not None:
        problems.append(f"Surrogate characters are not allowed: U+{ord(surrogate):X}.")
    if problems:
        raise _FieldError(problems)
    return text


def _choice(value: object, rule: FieldRule) -> str:
    allowed = "Use one of: " + ", ".join(rule.choices) + "."
    given = value.strip() if isinstance(value, str) else value
    if given not in rule.choices:
        raise _FieldError([f'"{given}" is not allowed. {allowed}'])
    return given


def _number(value: object, rule: FieldRule) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _FieldError([NOT_A_NUMBER])
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        raise _FieldError([NOT_A_NUMBER]) from None
    if not math.isfinite(number):
        raise _FieldError([NOT_A_NUMBER])
    if rule.maximum is not None and number > rule.maximum:
        raise _FieldError([f"Ensure this value is less than or equal to {rule.maximum}."])
    if rule.minimum is not None and number < rule.minimum:
        raise _FieldError([f"Ensure this value is greater than or equal to {rule.minimum}."])
    return number


def _time(value: object, rule: FieldRule) -> datetime:
    try:
        return parse_time(value)
    except ValueError as error:
        raise _FieldError([str(error)]) from None


def _list(value: object, rule: FieldRule) -> list[str]:
    if not isinstance(value, list):
        raise _FieldError([f'Expected a list of items but got type "{type(value).__name__}".'])
    item_rule = FieldRule("text", max_chars=rule.max_chars)
    items, errors = [], {}
    for index, item in enumerate(value):
        try:
            if item is None:
                raise _FieldError([NOT_NULL])
            items.append(_text(item, item_rule))
        except _FieldError as error:
            errors[index] = error.detail
    if errors:
        raise _FieldError(errors)
    if rule.max_items is not None and len(items) > rule.max_items:
        raise _FieldError([f"Ensure this field has no more than {rule.max_items} elements."])
    return items


def _holds_nul(value: object) -> bool:
    """Whether a NUL character is in any key or string of `value` (depth already bounded)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            if any("\x00" in str(key) for key in item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _object(value: object, rule: FieldRule) -> dict:
    if not isinstance(value, dict):
        raise _FieldError([f'Expected a dictionary of items but got type "{type(value).__name__}".'])
    cleaned = {str(name): item for name, item in value.items()}
    if json_depth(cleaned, stop_above=MAX_ATTRIBUTES_DEPTH) > MAX_ATTRIBUTES_DEPTH:
        raise _FieldError(
            [f"Nested deeper than {MAX_ATTRIBUTES_DEPTH} levels; at most {MAX_ATTRIBUTES_DEPTH} are allowed."]
        )  # noqa: E501
    if _holds_nul(cleaned):  # PostgreSQL's jsonb takes no NUL, in a key or a value, at any depth
        raise _FieldError([NO_NULL_CHARACTERS])
    if rule.max_bytes is not None:
        try:
            size = len(json.dumps(cleaned, ensure_ascii=False).encode("utf-8"))
        except UnicodeEncodeError as error:  # a lone surrogate (JSON may escape one) is no text
            surrogate = ord(error.object[error.start])
            raise _FieldError([f"Surrogate characters are not allowed: U+{surrogate:X}."]) from None
        if size > rule.max_bytes:
            raise _FieldError([f"attributes is {size} bytes of JSON; the limit is {rule.max_bytes} bytes (16 KiB)."])
    return cleaned


_BY_KIND: dict[str, Callable[[object, FieldRule], Any]] = {
    "text": _text,
    "choice": _choice,
    "number": _number,
    "time": _time,
    "list": _list,
    "object": _object,
}


def field_clean(name: str, value: object) -> Any:
    """One memory field, cleaned; `_FieldError` when its rule does not hold. None stays None
    where the rule allows it (emotion becomes "")."""
    rule = MEMORY_FIELD_RULES[name]
    if value is None:
        if not rule.null:
            raise _FieldError([NOT_NULL])
        cleaned = None
    else:
        cleaned = _BY_KIND[rule.kind](value, rule)
    after = _AFTER_RULE.get(name)
    return after(cleaned) if after is not None else cleaned


def _error_fields(name: str, detail: list[str] | dict[int, list[str]]) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        return {f"{name}.{index}": messages for index, messages in detail.items()}
    return {name: detail}


def memory_fields_clean(data: object, *, partial: bool = False) -> dict[str, Any]:
    """A memory as a client sent it (parsed JSON), cleaned: only the fields it gave, each by its
    rule; output-only fields it echoed back are dropped. `partial` (an update): no field is
    required. Raises ValidationFailed naming every broken field, in the fields' order; an
    unknown field is refused before any other check (a typo must not vanish silently)."""
    if not isinstance(data, Mapping):
        raise ValidationFailed(
            {"non_field_errors": [f"Invalid data. Expected a dictionary, but got {type(data).__name__}."]}
        )
    message = f"Unknown field. Memory fields are: {', '.join(MEMORY_FIELD_RULES)}."
    unknown_fields_refuse(data, [*MEMORY_FIELD_RULES, *READ_ONLY_FIELDS], message=message)
    cleaned: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for name, rule in MEMORY_FIELD_RULES.items():
        if name not in data:
            if rule.required and not partial:
                errors[name] = [REQUIRED]
            continue
        try:
            cleaned[name] = field_clean(name, data[name])
        except _FieldError as error:
            errors.update(_error_fields(name, error.detail))
    if errors:
        raise ValidationFailed(errors)
    return cleaned


# --- Import ------------------------------------------------------------------------------------


def _import_time(value: object, *, null: bool) -> datetime | None:
    if value is None:
        if not null:
            raise _FieldError([NOT_NULL])
        return None
    return _time(value, MEMORY_FIELD_RULES["expires_at"])


def import_times_clean(item: Mapping, *, now: datetime | None = None) -> dict[str, Any]:
    """The times of an exported memory that an import keeps (IMPORT_TIME_FIELDS), cleaned: none
    in the future (beyond IMPORT_CLOCK_SKEW, as it would sort before everything written later and
    confuse /memory/diff), and updated_at not before created_at. ValidationFailed otherwise."""
    cleaned: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for name in IMPORT_TIME_FIELDS:
        if name not in item:
            continue
        value = item[name]
        try:
            if name == "verified":
                if value is None:
                    raise _FieldError([NOT_NULL])
                if not isinstance(value, bool):
                    raise _FieldError([NOT_A_BOOLEAN])
                cleaned[name] = value
            else:
                cleaned[name] = _import_time(value, null=name == "verified_at")
        except _FieldError as error:
            errors[name] = error.detail  # type: ignore[assignment]
    if errors:
        raise ValidationFailed(errors)
    latest = (now or timezone.now()) + IMPORT_CLOCK_SKEW
    for name in ("created_at", "updated_at", "verified_at"):
        if cleaned.get(name) and cleaned[name] > latest:
            errors[name] = [f"{name} lies in the future; the latest accepted is {latest.isoformat()}."]
    created, updated = cleaned.get("created_at"), cleaned.get("updated_at")
    if created and updated and updated < created and "updated_at" not in errors:
        errors["updated_at"] = ["updated_at is before created_at; a memory cannot change before it exists."]
    if errors:
        raise ValidationFailed(errors)
    return cleaned


def import_items_clean(items: list, *, now: datetime | None = None) -> list[dict[str, dict]]:
    """The memories of an export, every one checked before anything is written: its fields
    (memory_fields_clean), its times (import_times_clean), and no two with the same category and
    key. Returns `[{"fields": …, "times": …}]` in file order; ValidationFailed by index otherwise
    (`{3: {"content": [...]}}`)."""
    validated: list[dict[str, dict]] = []
    errors: dict[int, dict] = {}
    seen: dict[tuple[str, str], int] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            errors[index] = {"body": ["Each memory must be a JSON object."]}
            continue
        item_errors: dict = {}
        try:
            fields = memory_fields_clean(item)
        except ValidationFailed as error:
            item_errors.update(error.fields)
        try:
            times = import_times_clean(item, now=now)
        except ValidationFailed as error:
            item_errors.update(error.fields)
        if item_errors:
            errors[index] = item_errors
            continue
        where = (fields["category"], key_given_or_derived(fields))
        if where in seen:
            errors[index] = {"key": [f"memories.{seen[where]} has the same category and key; keep one of them."]}
            continue
        seen[where] = index
        validated.append({"fields": fields, "times": times})
    if errors:
        raise ValidationFailed(errors)
    return validated
