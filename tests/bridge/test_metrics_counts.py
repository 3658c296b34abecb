"""The metrics the hot path keeps as plain counts read back at a scrape as prometheus_client
reads its own: buckets by upper bound ("le"), cumulative, +Inf last; each count once."""

import pytest
from vttbridge.adapters.bridge.metrics import ACK_BUCKETS, Metrics

parser = pytest.importorskip("prometheus_client.parser")


def families(m: Metrics) -> dict[str, list]:
    text = m.exposition().decode()
    return {f.name: f.samples for f in parser.text_string_to_metric_families(text)}


def test_answered_and_committed_read_back_at_a_scrape():
    m = Metrics()
    m.answered("minitable", {"ok": True, "seq": 1}, ACK_BUCKETS[0])  # on a bound: in it
    m.answered("minitable", {"ok": True, "seq": 2}, 0.003)
    m.answered("minitable", {"ok": False, "error": {"code": "busy"}}, 99.0)  # past the last
    m.answered("foundry", {"ok": False, "error": {}}, 0.02)
    m.committed(0.0004, False)
    m.committed(0.3, True)
    f = families(m)
    events = {(s.labels["adapter"], s.labels["outcome"]): s.value for s in f["vttbridge_events"]}
    assert events == {
        ("minitable", "ok"): 2,
        ("minitable", "refused"): 1,
        ("foundry", "refused"): 1,
    }
    refusals = {s.labels["code"]: s.value for s in f["vttbridge_refusals"]}
    assert refusals == {"busy": 1, "unknown": 1}
    buckets = {
        s.labels["le"]: s.value
        for s in f["vttbridge_ack_seconds"]
        if s.name.endswith("_bucket") and s.labels["adapter"] == "minitable"
    }
    assert buckets["0.001"] == 1 and buckets["0.0025"] == 1 and buckets["0.005"] == 2
    assert buckets["10.0"] == 2 and buckets["+Inf"] == 3
    (count,) = [
        s.value
        for s in f["vttbridge_ack_seconds"]
        if s.name.endswith("_count") and s.labels["adapter"] == "minitable"
    ]
    assert count == 3
    commit = {s.name: s.value for s in f["vttbridge_commit_seconds"] if "le" not in s.labels}
    assert commit["vttbridge_commit_seconds_count"] == 2
    assert commit["vttbridge_commit_seconds_sum"] == pytest.approx(0.3004)
    assert [s.value for s in f["vttbridge_commit_failures"]] == [1]


def test_metrics_off_count_nothing():
    m = Metrics(enabled=False)
    m.answered("minitable", {"ok": True, "seq": 1}, 0.001)
    m.committed(0.001, False)
    assert m.counts.events == {} and m.counts.commit.counts == [0] * (len(ACK_BUCKETS) + 1)
