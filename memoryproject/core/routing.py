"""URL helpers."""

from django.urls import URLPattern, path


def route(pattern: str, view, name: str) -> list[URLPattern]:
    """The contract accepts every API path with and without a trailing slash.

    Both forms resolve to the same view under `name` (so `resolver_match.url_name` names either);
    `reverse(name)` gives the slash-less form, because Django reverses to the last pattern of a name.
    """
    pattern = pattern.rstrip("/")
    return [path(f"{pattern}/", view, name=name), path(pattern, view, name=name)]
