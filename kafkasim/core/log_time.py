"""Where simulated time meets a log's clock: simulated time 0 is START_TIME, so the broker's and
the clients' logs of a run line up with each other and are the same on every machine."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

START_TIME = datetime(2026, 1, 1)
_EPOCH_S = int(START_TIME.replace(tzinfo=timezone.utc).timestamp())


def log4j_time(ms: int) -> str:
    """log4j's default `%d` (ISO8601 pattern, local time taken as UTC): '2026-01-01 00:00:01,234'."""
    t = START_TIME + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def unix_time(ms: int) -> str:
    """librdkafka's `rd_kafka_log_print` stamp, seconds and milliseconds since the Unix epoch:
    '1767225601.234'."""
    seconds, millis = divmod(ms, 1000)
    return f"{_EPOCH_S + seconds}.{millis:03d}"
