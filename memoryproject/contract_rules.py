"""What the OpenAPI document must say so that it states every rule the server enforces.

A postprocessing hook of drf-spectacular (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"], after its
enum hook). Schemathesis' `positive_data_acceptance` sends data the document allows and expects
no 400; `negative_data_rejection` sends data it forbids and expects a 4xx. So:

- every request body refuses fields it does not declare (`RejectUnknownFieldsMixin`, the memory
  field rules): `additionalProperties: false` on every request component;
- recall's `mode` and `mood` are checked against lists the memories app cannot import (the
  net's modes, synapses.constants.MODES; the emotion labels): their enums are added here, above
  the apps, like the rest of the contract (`memoryproject/contract_schema.py`).
"""

from __future__ import annotations

from memories.emotions import known_emotion_labels
from synapses.constants import MODES

# Request components of drf-spectacular's COMPONENT_SPLIT_REQUEST end so.
_REQUEST_SUFFIX = "Request"
# Query parameters whose allowed values this hook states: name → values ("" = left out).
_PARAMETER_ENUMS = {
    "mode": ("", *MODES),
    "mood": ("", *known_emotion_labels()),
}
_PARAMETER_NOTES = {
    "mode": " A mind's own modes (its settings) are accepted too.",
    "mood": " Case-insensitive.",
}


def rules_stated(result: dict, generator=None, request=None, public=None) -> dict:
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith(_REQUEST_SUFFIX) and component.get("type") == "object" and "properties" in component:
            component.setdefault("additionalProperties", False)
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                values = _PARAMETER_ENUMS.get(parameter.get("name"))
                if values and parameter.get("in") == "query" and parameter.get("schema", {}).get("type") == "string":
                    parameter["schema"] = {**parameter["schema"], "enum": list(values)}
                    parameter["description"] = parameter.get("description", "") + _PARAMETER_NOTES[parameter["name"]]
    return result
