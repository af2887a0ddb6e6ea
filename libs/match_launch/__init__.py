"""The launcher: the whole system on one machine, an embedded nats-server (or a local three-node
cluster) and the service processes.

Used by `make run` and `make run-cluster` (services/stack), `make chaos` (match_chaos), the
benchmarks and the end-to-end tests; nothing here is a stand-in, and nothing here is test-only.
"""
