"""What changes the long-term net. Services know nothing of HTTP; they take keyword arguments."""
