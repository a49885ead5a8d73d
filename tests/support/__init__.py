"""Helpers shared by the tests: polling for conditions that become true later."""
