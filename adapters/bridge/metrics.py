"""Prometheus metrics at ``/metrics``, for a host's monitoring to scrape, when the optional
``prometheus_client`` is installed (``pip install 'vttbridge[metrics]'``); without it the
bridge runs the same and ``/metrics`` says how to turn them on.

Each bridge has a registry of its own (several bridges in one process, as in the tests, never
share a count). What is counted, all prefixed ``vttbridge_``:

- ``events_total{adapter,outcome}``: the VTT events answered (``ok``, ``refused``);
- ``refusals_total{code}``: the refused ones by error code (``out_of_range``, ``busy``...);
- ``ack_seconds{adapter}``: from an event's arrival to its ack (a histogram);
- ``worlds_loaded``, ``connections{kind}``: worlds in memory; VTT clients and dashboards;
- ``commit_seconds``, ``commit_failures_total``: the database's group commits;
- ``lease_changes_total{change}``: world leases acquired, released, lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from vttbridge.adapters.bridge.protocol import Ack

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MISSING = (
    "Metrics are off: prometheus_client is not installed. Install the metrics extra "
    "(pip install 'vttbridge[metrics]') and restart the server.\n"
)
ACK_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """The bridge's metrics; every method does nothing when they are off (:attr:`on`)."""

    def __init__(self, enabled: bool = True) -> None:
        self.on = False
        self.registry: Any = None
        if not enabled:
            return
        try:
            import prometheus_client as prom
        except ImportError:
            log.info("Metrics are off: install 'vttbridge[metrics]' for /metrics.")
            return
        self.on = True
        self._prom = prom
        reg = self.registry = prom.CollectorRegistry()
        self._events = prom.Counter(
            "vttbridge_events", "VTT events answered", ["adapter", "outcome"], registry=reg
        )
        self._refusals = prom.Counter(
            "vttbridge_refusals", "Events refused, by error code", ["code"], registry=reg
        )
        self._ack = prom.Histogram(
            "vttbridge_ack_seconds",
            "Seconds from an event's arrival to its ack",
            ["adapter"],
            buckets=ACK_BUCKETS,
            registry=reg,
        )
        self._commit = prom.Histogram(
            "vttbridge_commit_seconds", "Seconds a group commit took", buckets=ACK_BUCKETS,
            registry=reg,
        )  # fmt: skip
        self._commit_failures = prom.Counter(
            "vttbridge_commit_failures", "Group commits that failed", registry=reg
        )
        self._leases = prom.Counter(
            "vttbridge_lease_changes", "World leases acquired, released or lost", ["change"],
            registry=reg,
        )  # fmt: skip
        self._worlds = prom.Gauge("vttbridge_worlds_loaded", "Worlds in memory", registry=reg)
        self._connections = prom.Gauge(
            "vttbridge_connections", "Open connections", ["kind"], registry=reg
        )
        # each event's counter and histogram, by adapter (labels() looks them up under a lock)
        self._answered: dict[tuple[str, bool], tuple[Any, Any]] = {}

    def answered(self, adapter: str, ack: Ack, seconds: float) -> None:
        if not self.on:
            return
        ok = ack.get("ok") is True
        pair = self._answered.get((adapter, ok))
        if pair is None:
            pair = self._answered[(adapter, ok)] = (
                self._events.labels(adapter, "ok" if ok else "refused"),
                self._ack.labels(adapter),
            )
        pair[0].inc()
        pair[1].observe(seconds)
        if not ok:
            code = (ack.get("error") or {}).get("code")
            self._refusals.labels(str(code or "unknown")).inc()

    def committed(self, seconds: float, failed: bool) -> None:
        if self.on:
            self._commit.observe(seconds)
            if failed:
                self._commit_failures.inc()

    def lease_changed(self, change: str) -> None:
        if self.on:
            self._leases.labels(change).inc()

    def watch(self, worlds: Callable[[], int], connections: dict[str, Callable[[], int]]) -> None:
        """Read the gauges from these at each scrape."""
        if not self.on:
            return
        self._worlds.set_function(worlds)
        for kind, count in connections.items():
            self._connections.labels(kind).set_function(count)

    def exposition(self) -> bytes:
        """The text a scrape gets."""
        return self._prom.generate_latest(self.registry) if self.on else MISSING.encode()
