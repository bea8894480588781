"""What resonance adds to GET /memory/recall?q= (docs/recall.md): the net's section of the recall
text and of its JSON, registered as the net's `recall_section` in SynapsesConfig.ready()
(docs/architecture.md, "Answers the net contributes to")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memoryproject.core.contributions import RecallSection
from minds.models import Mind
from synapses import constants
from synapses.resonance.arithmetic import ResonanceLine, resonance_text
from synapses.resonance.service import mood_resolve, resonance_of

# recall's key for the section (its JSON form: {"resonance": {...}}).
RECALL_SECTION_NAME = "resonance"


def recall_resonance_section(
    mind: Mind, q: str, options: Mapping[str, str], *, body: Callable[[dict[str, Any]], dict[str, Any]]
) -> RecallSection:
    """The resonance of `q` in the mind recall loaded (RESONANCE_DEFAULT_LIMIT knots) as the
    recall text's section and as JSON; `options` are recall's mode, intent and mood
    (ValidationFailed naming an unknown mood or mode). `body` shapes resonance_of's result into
    the JSON of GET /synapses/resonance: the API's (synapses.api.resonance_serializers
    .resonance_body, which writes times as DRF does), handed in where the section is registered
    (SynapsesConfig.ready()), so the stage imports nothing of HTTP."""
    result = resonance_of(
        mind=mind,
        q=q,
        mode=options.get("mode", ""),
        intent=options.get("intent", ""),
        mood=mood_resolve(options.get("mood", "")),
        limit=constants.RESONANCE_DEFAULT_LIMIT,
    )
    return RecallSection(
        name=RECALL_SECTION_NAME,
        text=resonance_text(q, resonance_lines(result["items"])),
        data=body(result),
    )


def resonance_lines(items: list[dict[str, Any]]) -> list[ResonanceLine]:
    """The recall text's view of resonance items (resonance_of's, strongest first): what the text
    shows of each, names already resolved."""
    return [
        ResonanceLine(
            content=item["content"],
            observer=item["observer"],
            emotion=item["emotion"],
            layers_by_step=[step["layers"] for step in item["path"]],
            entity_names_by_step=[step["shared_entities"] for step in item["path"]],
            themes_by_step=[step["shared_themes"] for step in item["path"]],
            superseded=item["superseded"],
            in_net=item["in_net"],
            contradicted=item["contradicted_by_memory_id"] is not None,
        )
        for item in items
    ]
