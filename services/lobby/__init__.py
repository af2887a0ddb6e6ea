"""The lobby: the public gRPC API. It authenticates players, checks what is cheap to check, and
forwards every command to the referee over NATS; it streams each player's redacted view of a
table from the table log. It writes nothing: the referee is the only writer."""
