"""``make chaos`` (``python -m match_chaos``): the local three-node cluster with two replicas of
every service, games played through it by scripted client players and the bots while service
replicas are SIGKILLed at random moments and one NATS node is stopped, then every game checked
against its table's log and verified with ``match-audit``.

The last line of a run is ``chaos: games=<n> kills=<k> lost=<events lost> duplicated=<events
applied twice> verified=<games verified>``; the exit status is 0 only when nothing was lost or
applied twice and every game finished and verified (match_chaos.check defines the counts).
"""
