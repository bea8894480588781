"""The registry of latency scenarios. Adding one is a decorated function:

    @scenario("recall", method="GET", path="/memory/recall", target_p95_ms=20)
    def recall(ctx: Context) -> Request:
        return lambda i: ctx.client.get("/memory/recall")

The function runs once before measuring (set-up) and returns the request to time; it is called
with the request's index, so each call can vary its input. A `Comparison` times one scenario
twice, interleaved, with and without a settings change (e.g. the pipeline log off).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bench.corpus import new_memory_bodies, search_queries

Request = Callable[[int], object]  # index → response


@dataclass
class Context:
    client: object  # rest_framework.test.APIClient with the Mind Key
    mind_id: str
    seed: int
    requests: int
    warmup: int


@dataclass(frozen=True)
class Scenario:
    name: str
    method: str
    path: str
    target_p95_ms: float | None
    expect_status: tuple[int, ...]
    make: Callable[[Context], Request]
    # Writing scenarios run after every reading one, so the reads all see the same data.
    writes: bool = False


@dataclass(frozen=True)
class Comparison:
    """`scenario` timed as configured (`on`) and with `off_settings` applied (`off`), interleaved."""

    name: str
    scenario: str
    off_settings: dict = field(default_factory=dict)
    # The most the `on` variant may add to the `off` variant's p95 (percent).
    target_overhead_pct: float | None = None


SCENARIOS: dict[str, Scenario] = {}
COMPARISONS: dict[str, Comparison] = {}


def scenario(
    name: str, *, method: str, path: str, target_p95_ms: float | None, expect_status=(200,), writes: bool = False
):
    def register(make: Callable[[Context], Request]) -> Callable[[Context], Request]:
        SCENARIOS[name] = Scenario(name, method, path, target_p95_ms, tuple(expect_status), make, writes)
        return make

    return register


def comparison(name: str, *, scenario: str, off_settings: dict, target_overhead_pct: float | None) -> None:
    COMPARISONS[name] = Comparison(name, scenario, off_settings, target_overhead_pct)


# --- the scenarios --------------------------------------------------------------------------------
# Targets: p95 on a 2-core machine (issue 3 of the Memory API).


@scenario("floor", method="GET", path="/memory/mem_… (unknown id, 404)", target_p95_ms=None, expect_status=(404,))
def floor(ctx: Context) -> Request:
    """The least an authenticated API call costs: middleware, Mind Key, throttle, one lookup, the error."""
    return lambda i: ctx.client.get("/memory/mem_doesnotexist00")


@scenario("store", method="POST", path="/memory", target_p95_ms=15, expect_status=(201,), writes=True)
def store(ctx: Context) -> Request:
    bodies = new_memory_bodies(ctx.warmup + ctx.requests * 2, seed=ctx.seed)  # each call a new key

    def request(i: int):
        return ctx.client.post("/memory", bodies[i % len(bodies)], format="json")

    return request


@scenario("recall", method="GET", path="/memory/recall", target_p95_ms=20)
def recall(ctx: Context) -> Request:
    return lambda i: ctx.client.get("/memory/recall")


@scenario("search", method="GET", path="/memory/search?q=…", target_p95_ms=25)
def search(ctx: Context) -> Request:
    queries = search_queries(200, seed=ctx.seed)
    return lambda i: ctx.client.get("/memory/search", {"q": queries[i % len(queries)]})


@scenario("semantic-search", method="GET", path="/memory/semantic-search?q=…", target_p95_ms=None)
def semantic_search(ctx: Context) -> Request:
    queries = search_queries(200, seed=ctx.seed)
    return lambda i: ctx.client.get("/memory/semantic-search", {"q": queries[i % len(queries)]})


comparison(
    "recall: pipeline log", scenario="recall", off_settings={"PIPELINE_LOG_ENABLED": False}, target_overhead_pct=10
)
