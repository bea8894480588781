"""URL converters for public ids, so `/memory/<id>` never swallows `/memory/recall`."""


class _PublicIdConverter:
    """A public id `<prefix>_<1–36 of A-Z a-z 0-9 _ ->`, passed through unchanged."""

    regex: str

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class MemoryIdConverter(_PublicIdConverter):
    regex = r"mem_[A-Za-z0-9_-]{1,36}"


class MindIdConverter(_PublicIdConverter):
    regex = r"m_[A-Za-z0-9_-]{1,36}"
