"""The OpenAPI schema is valid and documents both credentials; the docs page works offline."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from openapi_spec_validator import validate

from minds.api.urls import urlpatterns as account_urlpatterns

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def test_the_schema_is_valid_openapi_3(schema):
    validate(schema)  # raises on any violation

    assert schema["openapi"].startswith("3.")


def test_the_schema_documents_mind_keys_and_jwts_as_bearer_schemes(schema):
    schemes = schema["components"]["securitySchemes"]

    assert {name: (s["type"], s["scheme"], s["bearerFormat"]) for name, s in schemes.items() if "scheme" in s} == {
        "mindKey": ("http", "bearer", "MindKey"),
        "humanJwt": ("http", "bearer", "JWT"),
    }
    assert "mk_" in schemes["mindKey"]["description"]


def test_human_endpoints_do_not_advertise_mind_keys(schema):
    assert schema["paths"]["/minds"]["get"]["security"] == [{"humanJwt": []}, {"cookieAuth": []}]


def test_login_and_register_need_no_credentials(schema):
    assert "security" not in schema  # nothing is required globally …
    assert "security" not in schema["paths"]["/login"]["post"]  # … nor here
    assert "security" not in schema["paths"]["/register"]["post"]
    assert "security" not in schema["paths"]["/token/refresh"]["post"]


def test_each_path_is_listed_once_without_its_trailing_slash_twin(schema):
    assert "/minds" in schema["paths"]
    assert "/minds/{mind_id}/keys" in schema["paths"]
    assert [path for path in schema["paths"] if path.endswith("/")] == []


def test_lists_document_the_paging_body_and_parameters(schema):
    operation = schema["paths"]["/minds"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]

    assert body["required"] == ["count", "limit", "offset", "results"]
    limit = next(p for p in operation["parameters"] if p["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}


def test_errors_are_documented_in_the_error_shape(schema):
    response = schema["paths"]["/minds/{mind_id}"]["get"]["responses"]["404"]

    assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert set(schema["components"]["schemas"]["ErrorDetail"]["properties"]) == {"code", "message", "fields"}


def test_the_account_views_generate_without_warnings_or_errors(capsys):
    GENERATOR_STATS.reset()

    SchemaGenerator(patterns=account_urlpatterns).get_schema(request=None, public=True)

    assert capsys.readouterr().err == ""
    assert not GENERATOR_STATS


# --- Offline docs ---------------------------------------------------------------------------


class _Resources(HTMLParser):
    """Every URL the page makes the browser load: scripts, stylesheets/icons, images."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src"}.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.urls.append(value)


def test_the_docs_page_loads_nothing_from_outside_the_server(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    parser = _Resources()
    parser.feed(page)

    assert len(parser.urls) >= 3  # the stylesheet and the two Swagger UI scripts at least
    assert [url for url in parser.urls if not url.startswith("/") or url.startswith("//")] == []
    for url in parser.urls:
        assert client.get(url).status_code == 200, url
    # Swagger UI would otherwise fetch a badge from validator.swagger.io (its settings are in
    # the initialisation script, served from ?script so the page has no inline script).
    script = client.get("/api/docs/?script=").content.decode()
    assert '"validatorUrl": null' in script
