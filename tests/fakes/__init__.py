"""Test doubles shared by the test suite: the scripted fake model server (model_server)."""
