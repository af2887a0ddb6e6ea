"""Abuse tests: each reproduction of issue 22 at bounded scale, with the limit holding."""
