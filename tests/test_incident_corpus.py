"""The corpus of real incidents (tests/data/incidents, issue 31 item 6b): every entry well-formed
(its thread's URL, a label the diagnosis can name, its posted log files present and short, a
justification that quotes where the cause was settled), the benchmark's verdicts right on cases
whose outcome is known by construction, and the diagnosis's score on the corpus not below the
figure measured when the corpus was made."""

import datetime
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from kafkasim.analysis.diagnose import LABELS

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "incidents"
sys.path.insert(0, str(ROOT / "benchmarks"))

import diagnose_real  # noqa: E402

ENTRIES = yaml.safe_load((CORPUS / "index.yaml").read_text(encoding="utf-8"))["incidents"]
#: Measured on 2026-11-27 with the diagnosis as merged in main (ff0c2a3): 0 of 17 named first correctly;
#: With the client rules (client_rules.py) and the kafka-python reader (logs/kafka_python.py), 4 of 17:
#: ckpython-552 (librdkafka MAXPOLL), quarkus-44561 (the Java poll-timeout line) and kafka-python-2070
#: ("Heartbeat poll expired, leaving group") are named slow-processing, kafka-python-908 (a join refused with
#: INVALID_SESSION_TIMEOUT) misconfiguration, each from the client's lines alone. Named wrong first:
#: librdkafka-3450 (client-bug: librdkafka before 1.8.0 timing its session out during a long rebalance) and
#: kafka-python-1544 (client-bug: the 1.4.4 heartbeat deadlock) are named session-timeout-gc-or-stall from their
#: session lines, kaffe-92 (KAFKA-8653) `scaling`; the other misses read no line (kafkajs, aiokafka, franz-go,
#: librdkafka's debug layouts) or give no finding (yolean-k8s-kafka-108, librdkafka-2722).
MEASURED_RIGHT = 9
MEASURED_WRONG_FIRST = 2
SETTLED_BY = {"maintainer", "fix", "reporter"}
THREADS = ("https://github.com/", "https://issues.apache.org/jira/browse/KAFKA-", "https://stackoverflow.com/",
           "https://lists.apache.org/")


def test_every_folder_has_one_entry_and_every_entry_a_folder():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids))
    assert sorted(ids) == sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_each_entry_is_well_formed(entry):
    assert entry["url"].startswith(THREADS), entry["url"]
    assert entry["label"] in LABELS
    assert entry["settled_by"] in SETTLED_BY
    assert isinstance(entry["date"], datetime.date)
    assert entry["title"] and entry["client"]
    assert '"' in entry["justification"], "the justification quotes where the cause was settled"
    assert entry["logs"] and len(entry["log_sources"]) == len(entry["logs"])
    for name in entry["logs"]:
        lines = (CORPUS / entry["id"] / name).read_text(encoding="utf-8").splitlines()
        assert 1 <= len(lines) <= 80, f"{name}: {len(lines)} lines"
        assert all(line == line.rstrip("\r") for line in lines)


def test_the_corpus_covers_several_labels_and_both_kinds_of_log():
    assert len({e["label"] for e in ENTRIES}) >= 5
    kinds = {s == "broker" for e in ENTRIES for s in e["log_sources"]}
    assert kinds == {True, False}


def _corpus(tmp_path, entries, files):
    """A corpus of `entries`, their files copied from `files` ({(id, name): source path or text})."""
    for (ident, name), src in files.items():
        (tmp_path / ident).mkdir(exist_ok=True)
        if isinstance(src, Path):
            shutil.copy(src, tmp_path / ident / name)
        else:
            (tmp_path / ident / name).write_text(src, encoding="utf-8")
    (tmp_path / "index.yaml").write_text(yaml.safe_dump({"incidents": entries}), encoding="utf-8")
    return tmp_path


def test_the_benchmark_says_right_wrong_and_unread(tmp_path):
    sample = ROOT / "examples" / "incidents" / "slow-processing.log"
    entries = [{"id": "right", "label": "slow-processing", "logs": ["a.log"], "log_sources": ["broker"]},
               {"id": "wrong", "label": "network", "logs": ["a.log"], "log_sources": ["broker"]},
               {"id": "unread", "label": "network", "logs": ["a.log"], "log_sources": ["app"]}]
    corpus = _corpus(tmp_path, entries, {("right", "a.log"): sample, ("wrong", "a.log"): sample,
                                         ("unread", "a.log"): "hello\n\nworld\n"})
    right, wrong, unread = diagnose_real.measure(str(corpus))
    assert (right.named, right.why) == ("slow-processing", None)
    assert (wrong.named, wrong.why) == ("slow-processing", diagnose_real.OTHER_CAUSE)
    assert (unread.named, unread.why, unread.events) == (diagnose_real.NONE, diagnose_real.NOT_READ, 0)
    assert unread.unread == [["a.log", 1, "hello"], ["a.log", 3, "world"]]
    table = diagnose_real.tables([right, wrong, unread], entries)
    assert table.splitlines()[0] == "Named first correctly: 1 of 3 incidents (33%)."
    assert "| unread | network | (none) | 0/3 | no line read | `hello` |" in table


def test_the_score_is_not_below_the_measured_figure():
    outcomes = diagnose_real.measure()
    assert len(outcomes) == len(ENTRIES)
    assert sum(o.why is None for o in outcomes) >= MEASURED_RIGHT
    assert sum(o.why == diagnose_real.OTHER_CAUSE for o in outcomes) <= MEASURED_WRONG_FIRST
