"""Observability shared by every service: structlog set-up and the Prometheus metrics server."""

from __future__ import annotations

import logging
import sys

import structlog
from prometheus_client import start_http_server


def configure_logging(service: str, fmt: str = "auto", level: str = "info") -> None:
    """JSON lines when ``fmt`` is "json" (or "auto" and not on a terminal), readable otherwise."""
    json_lines = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if json_lines
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(service=service)


def serve_metrics(port: int, host: str = "127.0.0.1") -> None:
    """Serve /metrics on ``host:port``; port 0 turns it off."""
    if port:
        start_http_server(port, addr=host)
