"""A gRPC health probe for a pod whose server speaks TLS, which kubelet's own gRPC probe cannot:
``python -m match_deploy.probe 127.0.0.1:50051 --ca /run/match/secrets/ca.crt --server-name
lobby.match.svc``. Exit 0 when grpc.health.v1 answers SERVING, 1 otherwise (with a line why).
Plain text without ``--ca``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import grpc  # type: ignore[import-untyped]
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]


def check(address: str, ca: Path | None, server_name: str, timeout: float) -> str | None:
    """None when the server at ``address`` is SERVING; otherwise what went wrong."""
    if ca is not None:
        options = [("grpc.ssl_target_name_override", server_name)] if server_name else []
        credentials = grpc.ssl_channel_credentials(ca.read_bytes())
        channel = grpc.secure_channel(address, credentials, options=options)
    else:
        channel = grpc.insecure_channel(address)
    with channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout
            )
        except grpc.RpcError as error:
            return f"{address}: {error.code().name}: {error.details()}"
    if answer.status != health_pb2.HealthCheckResponse.SERVING:
        return f"{address}: {health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m match_deploy.probe", description=__doc__)
    parser.add_argument("address", help="host:port of the gRPC server")
    parser.add_argument("--ca", type=Path, help="CA certificate (PEM): speak TLS, verify with it")
    parser.add_argument("--server-name", default="", help="the name the certificate must hold")
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args(argv)
    problem = check(args.address, args.ca, args.server_name, args.timeout)
    if problem is not None:
        print(f"not serving: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
