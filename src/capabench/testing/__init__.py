"""Test doubles that ship with capabench: a fault-injecting OpenAI-compatible server."""
