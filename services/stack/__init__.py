"""``python -m services.stack``: `make run`, the whole system on this machine."""
