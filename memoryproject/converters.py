"""URL converters for public ids, so `/memory/<id>` never swallows `/memory/recall`."""


class MemoryIdConverter:
    regex = r"mem_[A-Za-z0-9_-]{1,36}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class MindIdConverter:
    regex = r"m_[A-Za-z0-9_-]{1,36}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
