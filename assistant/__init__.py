"""assistant: a local, real-time voice assistant."""

__version__ = "0.1.0"
