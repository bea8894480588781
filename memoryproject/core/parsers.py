"""Request parsing: every API body is a JSON object."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JSONObjectParser(JSONParser):
    """JSON, and only an object at the top level: arrays, strings, numbers and null are refused.

    The parsed object is also kept on the Django request as `parsed_json`, so the pipeline log's
    request summary (`pipelinelog.middleware`) reuses it instead of parsing the body a second time.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if not isinstance(data, dict):
            got = "null" if data is None else type(data).__name__
            raise ParseError(f"The request body must be a JSON object ({{...}}), not {got}.")
        request = (parser_context or {}).get("request")
        if request is not None:
            request._request.parsed_json = data
        return data
