"""The share-groups benchmark runs the load it describes, shortened: 100 members on 10 partitions at
10,000 records/s for 20 simulated seconds, in-process; the timed runs live in benchmarks/run_all.py."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))

import share_groups  # noqa: E402


def test_the_share_group_keeps_up_where_the_consumer_group_cannot():
    share, classic = share_groups.run_case("share", 20_000), share_groups.run_case("classic", 20_000)
    assert share["records_produced"] == classic["records_produced"] == 200_000
    # The consumer group: one member per partition, 10 x 500 records/s (2 ms each) after the 3 s initial
    # rebalance delay: at most 5,000 x 17 = 85,000. The share group: all 100 members, 50,000 records/s.
    assert classic["records_processed"] <= 85_000
    assert share["records_processed"] >= 190_000 and share["duplicates"] == 0
    assert share["ok"] and share["peak_rss_mb"] < share_groups.TARGET_MB


def test_the_report_gives_wall_and_cpu_against_the_target():
    row = {"case": "share", "members": 100, "partitions": 10, "records_produced": 6_000_000,
           "records_processed": 5_994_150, "duplicates": 0, "unprocessed_at_end": 5850, "latency_p99_ms": 1040.4,
           "simulate_wall_s": 12.5, "simulate_cpu_s": 2.6, "summary_wall_s": 1.9, "engine_events": 118_142,
           "event_rows": 249_498, "peak_rss_mb": 190.0, "wall_ok": False, "ok": True}
    info = {"date": "today", "cpus": 2, "cpu_model": "x", "python": "3.11", "os": "L"}
    text = share_groups.report([row], info, 1)
    assert ("| share | 100 | 10 | 6,000,000 | 5,994,150 (0) | 5,850 | 1.0 s | 12.5 s | 2.6 s | 1.90 s | 118,142 "
            "| 249,498 | 190 | < 10 s: no on wall, yes on CPU; < 2 GB: yes |") in text
