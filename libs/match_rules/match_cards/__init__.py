"""Match Cards: find every pair (or triple) of identical pictures before the failed attempts
reach the limit; solo, or a challenge table where each player plays their own copy of one deal.

The rules as implemented are stated in docs/rules-match-cards.md; each one has a test in
tests/rules/match_cards/.
"""
