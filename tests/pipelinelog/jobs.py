"""Task functions for the django-q2 hook tests."""

from pipelinelog.spans import current_span


def sample_job(number: int) -> int:
    current_span().calculation({"doubled": number * 2})
    return number * 2


def failing_job() -> None:
    raise ValueError("the job failed on purpose")
