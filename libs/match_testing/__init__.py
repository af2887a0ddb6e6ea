"""Running the real stack on one machine: an embedded nats-server and the service processes.

Used by `make run`, `make demo` and the tests; nothing here is a stand-in.
"""
