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

The counts of every event and commit are kept as plain numbers (:class:`Counts`) and read by
prometheus_client at each scrape, as a custom collector: its own counters take a lock for each
increment, and a move made seven of them (measured: 2.5 % of the instructions of a move under
full load). Each of those numbers has one writer (the event loop; the commit's thread with
``durability="full"``), so no lock is needed.
"""

from __future__ import annotations

import logging
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Any

from vttbridge.adapters.bridge.protocol import Ack

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MISSING = (
    "Metrics are off: prometheus_client is not installed. Install the metrics extra "
    "(pip install 'vttbridge[metrics]') and restart the server.\n"
)
ACK_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Histogram:
    """Observations counted by bucket (:data:`ACK_BUCKETS`, then +Inf) with their sum."""

    __slots__ = ("counts", "sum")

    def __init__(self) -> None:
        self.counts = [0] * (len(ACK_BUCKETS) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(ACK_BUCKETS, value)] += 1  # the first bound >= value: "le"
        self.sum += value

    def buckets(self) -> list[tuple[str, float]]:
        """Cumulative counts by upper bound, as the exposition has them."""
        out: list[tuple[str, float]] = []
        total = 0
        for bound, n in zip((*map(str, ACK_BUCKETS), "+Inf"), self.counts, strict=True):
            total += n
            out.append((bound, total))
        return out


class Counts:
    """What every event and commit adds to, read at each scrape (a prometheus_client custom
    collector: :meth:`collect`)."""

    def __init__(self) -> None:
        self.events: dict[tuple[str, str], int] = {}
        self.refusals: dict[str, int] = {}
        self.ack: dict[str, Histogram] = {}
        self.commit = Histogram()
        self.commit_failures = 0

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

        events = CounterMetricFamily(
            "vttbridge_events", "VTT events answered", labels=["adapter", "outcome"]
        )
        for (adapter, outcome), n in list(self.events.items()):
            events.add_metric([adapter, outcome], n)
        yield events
        refusals = CounterMetricFamily(
            "vttbridge_refusals", "Events refused, by error code", labels=["code"]
        )
        for code, n in list(self.refusals.items()):
            refusals.add_metric([code], n)
        yield refusals
        ack = HistogramMetricFamily(
            "vttbridge_ack_seconds",
            "Seconds from an event's arrival to its ack",
            labels=["adapter"],
        )
        for adapter, hist in list(self.ack.items()):
            ack.add_metric([adapter], hist.buckets(), hist.sum)
        yield ack
        commit = HistogramMetricFamily("vttbridge_commit_seconds", "Seconds a group commit took")
        commit.add_metric([], self.commit.buckets(), self.commit.sum)
        yield commit
        yield CounterMetricFamily(
            "vttbridge_commit_failures", "Group commits that failed", value=self.commit_failures
        )


class Metrics:
    """The bridge's metrics; every method does nothing when they are off (:attr:`on`)."""

    def __init__(self, enabled: bool = True) -> None:
        self.on = False
        self.registry: Any = None
        self.counts = Counts()
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
        reg.register(self.counts)
        self._leases = prom.Counter(
            "vttbridge_lease_changes", "World leases acquired, released or lost", ["change"],
            registry=reg,
        )  # fmt: skip
        self._worlds = prom.Gauge("vttbridge_worlds_loaded", "Worlds in memory", registry=reg)
        self._connections = prom.Gauge(
            "vttbridge_connections", "Open connections", ["kind"], registry=reg
        )

    def answered(self, adapter: str, ack: Ack, seconds: float) -> None:
        if not self.on:
            return
        counts = self.counts
        ok = ack.get("ok") is True
        key = (adapter, "ok" if ok else "refused")
        counts.events[key] = counts.events.get(key, 0) + 1
        hist = counts.ack.get(adapter)
        if hist is None:
            hist = counts.ack[adapter] = Histogram()
        hist.observe(seconds)
        if not ok:
            code = str((ack.get("error") or {}).get("code") or "unknown")
            counts.refusals[code] = counts.refusals.get(code, 0) + 1

    def committed(self, seconds: float, failed: bool) -> None:
        if self.on:
            self.counts.commit.observe(seconds)
            if failed:
                self.counts.commit_failures += 1

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
