"""Kept for old invocations (`python -m memoryproject.embedded_db stop DIR`); see memoryproject/embedded/server.py."""

import sys

from memoryproject.embedded.server import clients_file_path, embedded_database_url, main, stop_embedded_server

__all__ = ["clients_file_path", "embedded_database_url", "main", "stop_embedded_server"]

if __name__ == "__main__":
    sys.exit(main())
