"""NATS and JetStream adapters shared by the services: subjects, streams, the fenced append."""
