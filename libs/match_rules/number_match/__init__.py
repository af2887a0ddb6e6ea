"""Number Match: a solo number puzzle (board rules, solver, deal)."""
