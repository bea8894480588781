"""Refusing what an endpoint does not take: a query parameter or a body field we do not know is a
400 naming it, so a typo like `?limt=5` or `{"tag": …}` is told, never silently ignored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rest_framework.exceptions import ValidationError

from memoryproject.core.domain import ValidationFailed, unknown_fields_refuse


def unknown_params_reject(params: Mapping[str, object], allowed: Iterable[str]) -> None:
    """400 naming every query parameter that is not in `allowed`."""
    allowed = list(allowed)
    unknown_fields_reject(params, allowed, message=f"Unknown parameter. This endpoint takes: {', '.join(allowed)}.")


def unknown_fields_reject(data: Mapping[str, object], allowed: Iterable[str], *, message: str) -> None:
    """400 naming every field of the body `data` that is not in `allowed`, each with `message`
    (the rule of memoryproject.core.domain.unknown_fields_refuse, raised as DRF's error so a
    serializer collects it like its own)."""
    try:
        unknown_fields_refuse(data, allowed, message=message)
    except ValidationFailed as error:
        raise ValidationError(error.fields) from None


class RejectUnknownFieldsMixin:
    """For a serializer of a JSON body: a field it does not declare is a 400 listing those it does."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown_fields_reject(data, self.fields, message=f"Unknown field. Use: {', '.join(self.fields)}.")
        return super().to_internal_value(data)
