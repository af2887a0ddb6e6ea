"""The bot: fills the empty seats of open tables and plays them over gRPC, like a person."""
