"""URL helpers."""

from django.urls import URLPattern, path


def route(pattern: str, view, name: str) -> list[URLPattern]:
    """The contract accepts every API path with and without a trailing slash.

    Both forms resolve to the same view; `name` reverses to the slash-less form.
    """
    pattern = pattern.rstrip("/")
    return [path(pattern, view, name=name), path(f"{pattern}/", view)]
