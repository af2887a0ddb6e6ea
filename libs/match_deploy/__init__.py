"""Deployment helpers: the Kubernetes secrets an overlay needs (``secrets``), a gRPC health
probe that speaks TLS (``probe``), and ``make deploy-check`` (``check``)."""
