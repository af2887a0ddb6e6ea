"""The five services of Match, each a process of its own: ``python -m services.<name>``."""
