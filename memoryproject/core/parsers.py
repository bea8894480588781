"""Request parsing: every API body is a JSON object, nested at most JSON_MAX_DEPTH levels."""

import codecs

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils.json import strict_constant

from memoryproject.core.jsonbounds import JSONTooDeep, loads_bounded


class JSONObjectParser(JSONParser):
    """JSON, and only an object at the top level: arrays, strings, numbers and null are refused.

    DRF's own parser lets a body nested ~1,000 levels deep raise RecursionError (a 500); this one
    refuses anything deeper than JSON_MAX_DEPTH with a 400 naming the bound
    (`memoryproject.core.jsonbounds`).

    The parsed object is also kept on the Django request as `parsed_json`, so the pipeline log's
    request summary (`pipelinelog.middleware`) reuses it instead of parsing the body a second time.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = get_encoding(parser_context)  # refuses bytes-to-bytes codecs (bz2_codec)
        try:
            text = codecs.getreader(encoding)(stream).read()
            data = loads_bounded(text, parse_constant=strict_constant if self.strict else None)
        except JSONTooDeep as exc:
            raise ParseError(str(exc)) from None
        except ValueError as exc:  # malformed JSON, bytes that are not UTF-8
            raise ParseError(f"JSON parse error - {exc}") from None
        if not isinstance(data, dict):
            got = "null" if data is None else type(data).__name__
            raise ParseError(f"The request body must be a JSON object ({{...}}), not {got}.")
        request = parser_context.get("request")
        if request is not None:
            request._request.parsed_json = data
        return data
