"""The embedded server's pure parts: its default shared buffers (a quarter of the memory, 128 MB to
1 GB) and how it knows a recorded process again."""

from __future__ import annotations

import pytest

from memoryproject.embedded import server as embedded_db

PAGE = 4096
MB = 2**20


@pytest.fixture
def memory(monkeypatch, tmp_path):
    """memory(physical_mb, cgroup_limit): the machine's memory and its container's limit file."""

    def set_memory(physical_mb: int, cgroup_limit: str | None = None) -> None:
        sizes = {"SC_PAGE_SIZE": PAGE, "SC_PHYS_PAGES": physical_mb * MB // PAGE}
        monkeypatch.setattr(embedded_db.os, "sysconf", lambda name: sizes[name])
        limit_file = tmp_path / "memory.max"
        if cgroup_limit is not None:
            limit_file.write_text(cgroup_limit + "\n")
        monkeypatch.setattr(embedded_db, "_CGROUP_MEMORY_MAX", limit_file)

    return set_memory


def test_a_machine_of_2_gb_gets_512_mb(memory):
    memory(2048)
    assert embedded_db.default_shared_buffers_mb() == 512


def test_a_large_machine_gets_the_cap_of_1_gb(memory):
    memory(65536)
    assert embedded_db.default_shared_buffers_mb() == 1024


def test_a_small_machine_gets_postgresql_s_own_default_of_128_mb(memory):
    memory(256)
    assert embedded_db.default_shared_buffers_mb() == 128


def test_a_container_s_memory_limit_counts_instead_of_the_host_s_memory(memory):
    memory(65536, cgroup_limit=str(1024 * MB))
    assert embedded_db.default_shared_buffers_mb() == 256


def test_a_container_without_a_limit_counts_the_machine_s_memory(memory):
    memory(2048, cgroup_limit="max")
    assert embedded_db.default_shared_buffers_mb() == 512


def test_a_recorded_process_is_the_same_when_its_start_time_reads_up_to_two_seconds_off():
    assert embedded_db.same_process([4242, 1000.0], [4242, 1001.0])
    assert embedded_db.same_process([4242, 1000.0], [4242, 998.0])
    assert not embedded_db.same_process([4242, 1000.0], [4242, 1002.5])  # a later process of the same pid
    assert not embedded_db.same_process([4243, 1000.0], [4242, 1000.0])
    assert not embedded_db.same_process(None, [4242, 1000.0])
