"""``make chaos`` (``python -m match_chaos``): the local three-node cluster with two replicas of
every service, games of all five kinds played through it by scripted client players (one module
per game) and the bots while service replicas are SIGKILLed at random moments and one NATS node
is stopped, then every game checked against its table's log and verified with ``match-audit``,
the players projection compared with a fold of the log (match_chaos.projection), and how long
the tables were unavailable to the players reported per fault kind (match_chaos.unavailable).

The last line of a run is ``chaos: games=<n> (<kind>=<n> ...) kills=<k> lost=<events lost>
duplicated=<events applied twice> verified=<games verified> projections=<ok|WRONG>``; the exit
status is 0 only when nothing was lost or applied twice, every game finished and verified and
every players replica holds what the log says (match_chaos.check defines the counts).
"""
