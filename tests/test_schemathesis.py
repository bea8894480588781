"""The OpenAPI schema is the contract: schemathesis calls every operation and checks each answer.

Run in-process against the WSGI application (the whole middleware stack, the real PostgreSQL test
database), once with a Mind Key and once with a JWT naming the mind in `X-Mind`. Schemathesis
generates valid and invalid requests from the schema (its examples, coverage and fuzzing phases)
and every answer must pass the four checks of the contract: no 5xx, a status code and a content
type the operation documents, and a body that matches the documented schema. Derandomized, with a
fixed number of examples per operation, so a run is the same every time and bounded.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator

import hypothesis
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import jwt_for

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# The last two hold the document to what the server enforces: data the schema allows is accepted
# (not a 400), data it forbids is refused (a 4xx) — enums, bounds, formats, unknown fields.
CONTRACT_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    negative_data_rejection,
]
# Generated requests per operation in the fuzzing phase (the examples and coverage phases add
# their own, a fixed set per operation). Bounds the run: ~46 operations × 2 credentials.
FUZZ_EXAMPLES_PER_OPERATION = 5
SEED = 20261201


# Rules the server enforces that no OpenAPI schema can state, each with its reason: the one check
# that would need the rule is left out for that operation only (every other check still runs).
_POSITIVE, _NEGATIVE = positive_data_acceptance, negative_data_rejection
_NOT_STATED_IN_THE_SCHEMA: dict[tuple[str, str], tuple[object, str]] = {
    ("POST", "/memory"): (_POSITIVE, "event_time phrases; no NUL or lone surrogate in any text"),
    ("PUT", "/memory/{memory_id}"): (_POSITIVE, "event_time phrases; no NUL or lone surrogate in any text"),
    ("PATCH", "/memory/{memory_id}"): (_POSITIVE, "event_time phrases; no NUL or lone surrogate in any text"),
    ("POST", "/memory/sync"): (_POSITIVE, "as POST /memory, per item"),
    ("POST", "/mind/import"): (_POSITIVE, "the net's sections are read by the net's import rules"),
    ("GET", "/memory/{memory_id}"): (_POSITIVE, "?mind= must name the memory's own mind: state, not shape"),
    ("POST", "/register"): (_POSITIVE, "Django's password validators (too common, too similar to the email)"),
    ("POST", "/minds/{mind_id}/share"): (_POSITIVE, "the email must be an existing account's"),
    ("POST", "/webhooks"): (_POSITIVE, "a hook's URL must be a public http(s) address"),
    ("PUT", "/webhooks/{webhook_id}"): (_POSITIVE, "a hook's URL must be a public http(s) address"),
    ("GET", "/log"): (_POSITIVE, "until must not lie before since: two parameters together"),
    ("GET", "/memory/recall"): (_NEGATIVE, "mood is checked only when there is a q to resonate with"),
}


def _config(*, coverage: bool) -> schemathesis.Config:
    return schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "generation": {
                "mode": "all",  # valid and invalid requests: the 400s must be documented too
                "max-examples": FUZZ_EXAMPLES_PER_OPERATION,
                "deterministic": True,
                "no-shrink": True,
                "database": "none",
            },
            "phases": {
                "examples": {"enabled": True},
                "coverage": {"enabled": coverage},
                "fuzzing": {"enabled": True},
                "stateful": {"enabled": False},
            },
            "operations": [
                {
                    # /health reports an outage with its documented 503 (`status: degraded`); tests run
                    # no worker cluster, so here it always does. A 500 would still fail.
                    "include-path": "/health",
                    "checks": {"not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx", "503"]}},
                },
            ],
        }
    )


# Rates high enough that no generated request is throttled: a 429 is documented and would pass,
# but it would hide what the endpoint answers. The throttles have their own tests.
_UNTHROTTLED = {
    "register_ip": "100000/min",
    "mind_key": "100000/min",
}
# … and the login policy's limits (minds/login_policy.py), which are settings, not DRF rates.
_LOGINS_UNLIMITED = {"LOGIN_LOCKOUT_FAILURES": 100_000, "LOGIN_ADDRESS_FAILURES": 100_000}

_SEED_MEMORIES = [
    {"category": "identity", "key": "user_name", "content": "Michael Schäfer", "tags": ["person"], "priority": "high"},
    {
        "category": "fact",
        "content": "Anna is my sister; her birthday is in May.",
        "tags": ["family", "anna"],
        "entities": ["Anna"],
        "event_time": "2026-05-04",
        "emotion": "joy",
    },
    {"category": "preference", "content": "Prefers concise technical answers", "expires_at": "2099-01-01T00:00:00Z"},
]


def _contract_schema(*, coverage: bool) -> schemathesis.BaseSchema:
    """The schema /api/schema/ serves (same generator, same JSON renderer), built at collection
    without a request, so no database is needed yet; calls go to the WSGI application."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    loaded = schemathesis.openapi.from_dict(
        json.loads(OpenApiJsonRenderer().render(document)), config=_config(coverage=coverage)
    )
    loaded.app = get_wsgi_application()
    return loaded


# The coverage phase (every field's boundary and invalid values, a fixed set per operation) runs
# with the Mind Key only: validation runs after authorization and is the same code whichever
# credential passed it, and the phase is half of the run's time (~157 s of ~330 s). The JWT run
# keeps the examples and the fuzzing phase, which reach every operation with that credential.
schema = _contract_schema(coverage=True)
schema_without_coverage = _contract_schema(coverage=False)


@pytest.fixture
def seeded_path_ids(db, settings, mind, reader) -> Iterator[dict[str, object]]:
    """Seeds the mind, turns throttling off, keeps the test's transaction across requests, and
    gives the ids of real objects, put into about half of the generated paths: a random `mem_…`
    id is always a 404, and the documented 200 bodies of /memory/{id}, /minds/{id}, … must be
    seen too."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **_UNTHROTTLED},
    }
    for name, limit in _LOGINS_UNLIMITED.items():
        setattr(settings, name, limit)
    for memory in _SEED_MEMORIES:
        assert mind.agent.post("/memory", memory, format="json").status_code == 201
    seeded = {
        "memory_id": mind.agent.get("/memory?limit=1").json()["results"][0]["id"],
        "mind_id": mind.mind.pk,
        "key_id": mind.mind.keys.get().pk,
        "share_id": mind.mind.shares.get(user=reader.user).pk,
    }
    # The WSGI handler closes the connection at the start and end of each request (Django's
    # test client prevents that too), which would end the test's transaction and lose its data.
    # After the last use of the test client, which connects the signal again when it is done.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield seeded
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def _with_seeded_ids(case, seeded: dict[str, object]) -> None:
    """Replace a path id by the seeded one for about half of the generated values (chosen by the
    value itself, so the same run makes the same choice)."""
    for name, value in (case.path_parameters or {}).items():
        if name in seeded and zlib.crc32(repr(value).encode()) % 2 == 0:
            case.path_parameters[name] = seeded[name]


# The fixtures (the mind, its key, the seeded memories) are set up once per operation and shared by
# its generated requests on purpose: what one request stores, the next may read. No deadline and
# no speed health check: on a busy 2-core machine generation and answers are slow, not wrong.
_HYPOTHESIS_SETTINGS = hypothesis.settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
    deadline=None,
)


def _call_and_validate(case, headers: dict[str, str]) -> None:
    response = case.call(headers=headers)
    left_out = _NOT_STATED_IN_THE_SCHEMA.get((case.operation.method.upper(), case.operation.path), (None,))[0]
    checks = [check for check in CONTRACT_CHECKS if check is not left_out]
    case.validate_response(response, checks=checks, headers=headers)


@schema.parametrize()
@_HYPOTHESIS_SETTINGS
def test_every_answer_to_a_mind_key_is_one_the_schema_documents(case, mind, seeded_path_ids):
    _with_seeded_ids(case, seeded_path_ids)
    _call_and_validate(case, {"Authorization": f"Bearer {mind.key}"})


@schema_without_coverage.parametrize()
@_HYPOTHESIS_SETTINGS
def test_every_answer_to_a_jwt_naming_the_mind_is_one_the_schema_documents(case, mind, owner, seeded_path_ids):
    _with_seeded_ids(case, seeded_path_ids)
    if case.query and "mind" in case.query:
        # The owner's mind, not a generated id that no one can see (404 on every request).
        case.query["mind"] = mind.mind.pk
    _call_and_validate(case, {"Authorization": f"Bearer {jwt_for(owner.user)}", "X-Mind": mind.mind.pk})
