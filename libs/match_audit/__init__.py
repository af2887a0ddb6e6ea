"""Auditing games: the transparency log's proofs and checkpoints, and the re-run of the rules."""
