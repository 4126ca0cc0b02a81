"""pause()/resume() across rebalances: the behaviour matrix (by version, protocol and remedy) row by
row, the KAFKA-13463 report reproduced, each remedy's effect, determinism and bad input.

Expected values come from the Kafka sources at the release tags (SubscriptionState.assignFromSubscribed, ConsumerCoordinator.onJoinPrepare/
onJoinComplete, Fetcher.fetchedRecords at 2.3.0 / 2.4.0, KafkaConsumer.poll at 2.4.0 / 2.5.0),
not from the simulator's own output.
"""

import math

import pytest

from kafkasim.core.config import KAFKA_VERSIONS
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS
from kafkasim.client.pause_resume import (COOPERATIVE, EAGER, REMEDIES, SUMMARY_DOC, PauseScenario, behaviour_matrix,
                            simulate_pause, sweep)
from kafkasim.client.subscription_state import at_least

MAX_POLL_RECORDS = 500  # default since 0.10.1 (KIP-62)


@pytest.fixture(scope="module")
def matrix():
    df = behaviour_matrix(versions=KAFKA_VERSIONS)
    return {(r.kafka_version, r.protocol, r.change): r for r in df.itertuples()}


def era(version):
    return "<=2.3" if not at_least(version, "2.4") else "2.4" if not at_least(version, "2.5") else ">=2.5"


# -- C.5, row by row, for every release line ----------------------------------------------------
@pytest.mark.parametrize("version", KAFKA_VERSIONS)
def test_c5_eager_rows(matrix, version):
    """C.5 rows "0.9-2.3 eager", "2.4 eager", "2.5-3.9 eager": every flag is lost; paused buffered data is
    discarded (<= 2.3), returned after the blocking rejoin (2.4) or drained during the non-blocking one (2.5+)."""
    row = matrix[(version, EAGER, "join")]
    assert (row.flag_of_retained, row.flag_of_moved) == ("lost", "lost")
    if era(version) == "<=2.3":
        # Fetcher.fetchedRecords @ 2.3.0: a paused partition is "no longer fetchable" and its data drained
        assert row.buffer_while_paused == "discarded at the next poll()"
        assert row.records_returned_from_buffer == 0
    else:
        # KAFKA-7548 (2.4.0): the completed fetch of a paused partition goes back on the queue
        assert row.buffer_while_paused == "kept in the buffer"
        assert row.records_discarded_while_paused == 0
    if era(version) == "2.4":
        # join blocks inside poll(); the re-assigned partitions' buffered data matches the committed offset
        assert row.records_returned_from_buffer > 0
        assert "returned after the reassignment" in row.buffer_at_rebalance
    if era(version) == ">=2.5":
        # KAFKA-8421: poll() collects between onJoinPrepare and onJoinComplete: data of unassigned partitions drained
        assert row.records_returned_from_buffer == 0
        assert row.buffer_at_rebalance == "drained (no longer assigned)"


@pytest.mark.parametrize("version", [v for v in KAFKA_VERSIONS if at_least(v, "2.4")])
def test_c5_cooperative_rows(matrix, version):
    """C.5 rows "2.4 cooperative", "2.5-3.9 cooperative": a retained partition keeps its flag and its
    buffered data; a revoked one loses the flag (and starts unpaused at its new owner), its data drained."""
    row = matrix[(version, COOPERATIVE, "join")]
    assert (row.flag_of_retained, row.flag_of_moved) == ("kept", "lost")
    assert row.buffer_while_paused == "kept in the buffer"
    assert row.buffer_at_rebalance == "drained (no longer assigned); kept for retained partitions"
    assert row.records_returned_from_buffer == 0


@pytest.mark.parametrize("version", KAFKA_VERSIONS)
def test_c5_lost_rows(matrix, version):
    """C.5 row "any >= 2.4, lost path": onPartitionsLost clears every flag, under both protocols, and the
    buffered data is dropped, never returned (before 2.4 the lost path is the eager path)."""
    for protocol in (EAGER, COOPERATIVE) if at_least(version, "2.4") else (EAGER,):
        row = matrix[(version, protocol, "lost")]
        assert row.flag_of_retained == "lost"
        assert row.flag_of_moved in ("lost", "-")
        assert row.records_returned_from_buffer == 0


@pytest.mark.parametrize("version", ["0.10.1", "2.3", "2.4", "3.7"])
def test_who_clears_the_flags_and_which_callbacks_run(version):
    """<= 2.3: onJoinComplete's fresh TopicPartitionState clears the flags, and an expelled member gets
    onPartitionsRevoked; 2.4+: onJoinPrepare's assignFromSubscribed(empty) clears them, and the lost path
    calls onPartitionsLost (KIP-429)."""
    joined = simulate_pause(kafka_version=version).summary["pause_flags_cleared"]
    lost = simulate_pause(kafka_version=version, changes=((12_000, "lost", "consumer-1"),)).events
    me = lost[lost.member == "consumer-1"]
    if at_least(version, "2.4"):
        assert set(joined) == {"revocation"}
        assert "PartitionsLost" in set(me.kind)
        assert set(me[me.kind == "PauseFlagCleared"].reason) == {"lost"}
    else:
        assert set(joined) == {"fresh_state"}
        assert "PartitionsLost" not in set(lost.kind)
        assert set(me[me.kind == "PauseFlagCleared"].reason) == {"fresh_state"}


def test_only_cooperative_rows_from_2_4():
    df = behaviour_matrix(versions=("2.3", "2.4"))
    assert set(zip(df.kafka_version, df.protocol)) == {("2.3", EAGER), ("2.4", EAGER), ("2.4", COOPERATIVE)}


# -- the KAFKA-13463 report ----------------------------------------------------------------------
@pytest.mark.parametrize("version", ["2.3", "2.4", "2.5", "3.7"])
def test_seed_loop_gets_records_although_it_pauses_before_every_poll(version):
    run = simulate_pause(kafka_version=version)
    ev = run.events
    unexpected = ev[ev.reason.fillna("").str.startswith("unexpected")]
    assert run.summary["unexpected_records"] == unexpected.value.sum() > 0
    # each member's unexpected records come in the poll() that completed its rebalance (C.4 steps 1-3): after
    # the flag was cleared or the partition newly assigned, and at most max.poll.records of them
    for member, rows in unexpected.groupby("member"):
        first = rows.time.min()
        assigned = ev[(ev.member == member) & (ev.kind == "PartitionsAssigned") & (ev.time <= first)]
        assert not assigned.empty and assigned.time.max() >= 12_000
        assert rows.value.sum() <= MAX_POLL_RECORDS
    assert run.summary["unexpected_polls"] == unexpected.member.nunique()


def test_seed_records_are_lost_once_the_passed_offsets_are_committed():
    """KAFKA-13425's "data loss": the loop drops what it did not expect, auto-commit commits the position."""
    s = simulate_pause().summary
    assert s["records_lost"] == s["unexpected_records"] > 0
    assert s["duplicates"] == 0


def test_duplicates_count_every_processing_of_a_record_after_its_first():
    """A member expelled at 10 s ("lost", no pause) has processed records past its last auto-commit; their
    new owner starts again from the committed offset. `duplicates` counts each processing beyond a record's
    first: the records processed (the Processed events' counts) minus the distinct records processed."""
    s = PauseScenario(pause_at_ms=36_000, resume_at_ms=None, changes=((10_000, "lost"),))
    run = simulate_pause(s)
    processed = int(run.events.loc[run.events.kind == "Processed", "value"].sum())
    distinct = s.partitions * s.records_per_partition - run.summary["unprocessed_at_end"]
    assert run.summary["duplicates"] == processed - distinct > 0


def test_where_the_unexpected_records_come_from_by_era():
    """C.4 path (a), buffered data returned after the blocking join, exists in 2.4 eager; from 2.5 the
    buffer is drained first and everything unexpected is a fresh fetch (path (b))."""
    s24 = simulate_pause(kafka_version="2.4").summary
    s25 = simulate_pause(kafka_version="2.5").summary
    assert s24["unexpected_from_buffer"] > 0
    assert s25["unexpected_from_buffer"] == 0 and s25["unexpected_new_fetch"] > 0
    assert simulate_pause(kafka_version="2.3").summary["unexpected_from_buffer"] == 0


def test_before_2_4_paused_data_is_fetched_twice():
    """KAFKA-7548's motivation: <= 2.3 throws away paused data and fetches it again after resume()."""
    s23 = simulate_pause(kafka_version="2.3", changes=()).summary
    s24 = simulate_pause(kafka_version="2.4", changes=()).summary
    assert s23["records_discarded"].get("not_fetchable", 0) > 0
    assert "not_fetchable" not in s24["records_discarded"]
    assert s23["records_fetched"] > s24["records_fetched"]
    assert s23["unprocessed_at_end"] == s24["unprocessed_at_end"] == 0


def test_without_a_rebalance_pause_holds_in_every_version():
    for version in ("0.10.1", "2.3", "2.4", "3.7"):
        assert simulate_pause(kafka_version=version, changes=()).summary["unexpected_records"] == 0


@pytest.mark.parametrize("version, logged", [("3.1", False), ("3.2", True), ("3.7", True)])
def test_pause_flag_log_line_from_3_2(version, logged):
    """KAFKA-13425 (PR #11460, 3.2.0) added only an INFO line in invokePartitionsRevoked/Lost."""
    run = simulate_pause(kafka_version=version, changes=((12_000, "lost", "consumer-1"),))
    lines = [line for _, _, line in run.client_log]
    assert bool(lines) is logged
    if logged:
        assert "The pause flag in partitions [orders-0, orders-1, orders-2] will be removed due to partition lost." \
            in lines
        assert any(line.endswith("will be removed due to revocation.") for line in lines)


def test_cooperative_onpartitionsassigned_gets_only_added_partitions():
    """ConsumerRebalanceListener javadoc: eager passes everything assigned, cooperative only what was added."""
    def assigned(protocol):
        ev = simulate_pause(protocol=protocol).events
        rows = ev[(ev.member == "consumer-1") & (ev.kind == "PartitionsAssigned") & (ev.generation == 2)]
        return sorted(rows.partition)
    assert assigned(EAGER) == [0, 1]        # range: consumer-1 keeps p0, p1 of p0-p2
    assert assigned(COOPERATIVE) == []      # cooperative-sticky: keeps p0, p2, gives up p4, nothing added


# -- remedies ------------------------------------------------------------------------------------
@pytest.mark.parametrize("version", ["2.3", "2.4", "2.5", "3.7"])
@pytest.mark.parametrize("protocol", [EAGER, COOPERATIVE])
@pytest.mark.parametrize("change", ["join", "leave", "lost"])
def test_repausing_in_onpartitionsassigned_returns_nothing_unexpected(version, protocol, change):
    kwargs = dict(kafka_version=version, protocol=protocol, remedy="repause_on_assigned",
                  changes=((12_000, change, "consumer-1" if change == "lost" else None),))
    if protocol == COOPERATIVE and not at_least(version, "2.4"):
        with pytest.raises(ConfigError, match="2.4"):  # no cooperative protocol before KIP-429
            simulate_pause(**kwargs)
        return
    run = simulate_pause(**kwargs)
    assert run.summary["unexpected_records"] == 0
    assert run.summary["unprocessed_at_end"] == 0


@pytest.mark.parametrize("protocol", [EAGER, COOPERATIVE])
def test_consumer_level_pause_proposal_returns_nothing_unexpected(protocol):
    for change in ((12_000, "join"), (12_000, "lost", "consumer-1")):
        s = simulate_pause(protocol=protocol, remedy="proposal_consumer_pause", changes=(change,)).summary
        assert s["unexpected_records"] == 0 and s["records_lost"] == 0
        assert s["pause_flags_cleared"] == {}  # nothing was paused per partition


def owners(ev, generation):
    rows = ev[(ev.kind == "PartitionsAssigned") & (ev.generation == generation)]
    return dict(zip(rows.partition, rows.member))


def test_keep_pause_proposal_leaves_the_moved_partitions_unpaused():
    """KAFKA-13463 PR #11911 (never merged) keeps the flag only where the partition stays: with range,
    2 -> 3 members, p2 and p4, p5 move; only their records come back unexpectedly."""
    run = simulate_pause(remedy="proposal_keep_pause")
    ev = run.events
    before, after = owners(ev, 1), owners(ev, 2)
    moved = {p for p, m in after.items() if before[p] != m}
    assert moved == {2, 4, 5}
    unexpected = ev[ev.reason.fillna("").str.startswith("unexpected")]
    assert set(unexpected.partition) <= moved and not unexpected.empty
    assert run.summary["unexpected_records"] < simulate_pause().summary["unexpected_records"]


def test_keep_pause_proposal_with_the_sticky_assignor_moves_fewer_partitions():
    """Eager sticky (KIP-54) keeps p0, p2 and p1, p3 where they were (reference B.5): only the joiner's p4, p5
    arrive unpaused, so half as many unexpected records as with range (which also moves p2)."""
    sticky = simulate_pause(assignor="sticky", remedy="proposal_keep_pause").summary
    ranged = simulate_pause(remedy="proposal_keep_pause").summary
    assert sticky["unexpected_by_member"] == {"consumer-3": MAX_POLL_RECORDS}
    assert ranged["unexpected_records"] == 2 * sticky["unexpected_records"]


def test_keep_pause_proposal_replays_its_kafka_test():
    """ConsumerCoordinatorTest.testRebalanceWithPauseTopicPartition (commit f85af9dd075, PR #11911): a paused
    partition still assigned after an eager rebalance is paused again in onJoinComplete."""
    ev = simulate_pause(remedy="proposal_keep_pause", app_loop="pause_once", resume_at_ms=None).events
    kept = ev[(ev.kind == "Paused") & (ev.reason == "proposal: pause kept across rebalance")]
    assert set(zip(kept.member, kept.partition)) == {("consumer-1", 0), ("consumer-1", 1), ("consumer-2", 3)}


def test_keep_pause_proposal_changes_nothing_under_cooperative():
    """Cooperative already keeps the flags of retained partitions (KIP-429), which is what the proposal copies."""
    a = simulate_pause(protocol=COOPERATIVE, remedy="proposal_keep_pause").summary
    b = simulate_pause(protocol=COOPERATIVE).summary
    assert a["unexpected_records"] == b["unexpected_records"] > 0


def test_clear_buffer_proposal_alone_does_not_stop_unexpected_records():
    """KAFKA-13463 suggestion 1 removes path (a) (2.4 eager) but not path (b): fresh fetches still return."""
    plain = simulate_pause(kafka_version="2.4").summary
    cleared = simulate_pause(kafka_version="2.4", remedy="proposal_clear_buffer_on_revoke").summary
    assert plain["unexpected_from_buffer"] > 0 and cleared["unexpected_from_buffer"] == 0
    assert cleared["unexpected_records"] > 0


def test_the_clear_buffer_proposal_discards_on_revocation_the_buffered_data_of_partitions_not_paused():
    """Each discard is a RecordsDiscarded row of its member and partition, at the revocation, with its count and
    the proposal's reason; the summary adds them up."""
    run = simulate_pause(kafka_version="2.4", remedy="proposal_clear_buffer_on_revoke")
    ev = run.events
    rows = ev[(ev.kind == "RecordsDiscarded") & (ev.reason == "proposal: cleared on revocation")]
    revoked = ev[ev.kind == "PartitionsRevoked"]
    assert len(rows) > 0 and (rows.value > 0).all()
    assert set(zip(rows.time, rows.member, rows.partition)) <= set(zip(revoked.time, revoked.member, revoked.partition))
    assert run.summary["records_discarded"]["proposal: cleared on revocation"] == rows.value.sum()


def test_pause_once_loses_far_more_than_the_seed_loop():
    """An application that pauses once is un-paused for good by an eager rebalance (KAFKA-2350)."""
    once = simulate_pause(app_loop="pause_once").summary["unexpected_records"]
    every = simulate_pause().summary["unexpected_records"]
    assert once > every


# -- sweep, outputs, determinism -------------------------------------------------------------
def test_sweep_covers_versions_protocols_remedies_and_labels_proposals():
    df = sweep()
    assert len(df) == (4 + 3) * len(REMEDIES)  # ERAS: 2.3 has no cooperative row
    assert set(df[~df.in_kafka].remedy) == {r for r in REMEDIES if r.startswith("proposal_")}
    assert all(REMEDIES[r].startswith("PROPOSAL") for r in REMEDIES if r.startswith("proposal_"))
    fixed = df[df.remedy.isin(["repause_on_assigned", "proposal_consumer_pause"])]
    assert (fixed.unexpected_records == 0).all()
    assert (df[df.remedy == "none"].unexpected_records > 0).all()


SWEEP_COUNTS = ("unexpected_records", "unexpected_polls", "unexpected_from_buffer", "unexpected_new_fetch",
                "records_lost", "records_fetched", "duplicates", "unprocessed_at_end", "generations")
#: The reasons SUMMARY_DOC gives for 2.3 and 3.7: flags lost to a fresh state (<= 2.3) or on revocation,
#: paused data discarded as not fetchable (<= 2.3) or as no longer assigned.
SWEEP_REASONS = {"pause_flags_cleared": ("fresh_state", "revocation"),
                 "records_discarded": ("not_fetchable", "not_assigned")}


def test_a_sweep_row_is_the_summary_of_its_versions_protocols_and_remedys_run_on_the_sweeps_scenario():
    """sweep(): one row per (version, protocol, remedy) in the order given, no cooperative row before 2.4
    (KIP-429) whatever the protocols' order; each row is the summary of that run of the scenario the keyword
    arguments make (here never resumed, its eager rows on the sticky assignor it names, the cooperative ones
    on cooperative-sticky), each dict flattened to `key.reason` (a reason the run has no entry for is 0),
    `unexpected_by_member` left out."""
    remedies = ("none", "proposal_keep_pause")
    df = sweep(versions=("2.3", "3.7"), protocols=(COOPERATIVE, EAGER), remedies=remedies, assignor="sticky",
               resume_at_ms=None)
    assert list(zip(df.kafka_version, df.protocol, df.remedy)) == [
        (v, p, r) for v, p in (("2.3", EAGER), ("3.7", COOPERATIVE), ("3.7", EAGER)) for r in remedies]
    assert set(df.columns) == {"kafka_version", "protocol", "remedy", "in_kafka", *SWEEP_COUNTS,
                               *(f"{key}.{reason}" for key, reasons in SWEEP_REASONS.items() for reason in reasons)}
    for row in df.to_dict("records"):
        eager = row["protocol"] == EAGER
        summary = simulate_pause(kafka_version=row["kafka_version"], protocol=row["protocol"], remedy=row["remedy"],
                                 assignor="sticky" if eager else None, resume_at_ms=None).summary
        assert row["in_kafka"] == (row["remedy"] == "none")
        assert {key: row[key] for key in SWEEP_COUNTS} == {key: summary[key] for key in SWEEP_COUNTS}
        for key, reasons in SWEEP_REASONS.items():
            assert {r: row[f"{key}.{r}"] for r in reasons} == {r: summary[key].get(r, 0) for r in reasons}


def test_events_use_the_project_schema_and_summary_is_documented():
    run = simulate_pause()
    assert list(run.events.columns) == list(FIELDS)
    assert set(run.events.source) == {"consumer", "coordinator"}
    assert set(run.summary) == set(SUMMARY_DOC)
    assert {"Paused", "Resumed", "PartitionsRevoked", "PartitionsAssigned", "RecordsReturned",
            "PauseFlagCleared"} <= set(run.events.kind)


def test_same_scenario_same_events():
    a, b = simulate_pause(protocol=COOPERATIVE), simulate_pause(protocol=COOPERATIVE)
    assert a.rows == b.rows and a.summary == b.summary and a.client_log == b.client_log
    assert sweep(versions=("2.4",)).equals(sweep(versions=("2.4",)))


# -- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, match", [
    ({"protocol": COOPERATIVE, "kafka_version": "2.3"}, "partition.assignment.strategy.*2.4"),
    ({"protocol": "incremental"}, "protocol must be"),
    ({"protocol": COOPERATIVE, "assignor": "range"}, "cooperative-sticky"),
    ({"assignor": "sticky", "kafka_version": "0.10.1"}, "0.11"),
    ({"remedy": "pause_harder"}, "remedy must be one of"),
    ({"app_loop": "sometimes"}, "app_loop must be one of"),
    ({"changes": ((1000, "explode"),)}, "membership change"),
    ({"changes": ((1000, "join", "consumer-5"),)}, "takes no member name"),
    ({"changes": ([1000, "join"],)}, "membership change is \\(time_ms"),  # a tuple, not a list
    ({"changes": ((-1, "join"),)}, "change time_ms must be an integer >= 0, got -1"),
    ({"consumer": {"max.poll.records": 0}}, "max.poll.records"),
    ({"resume_at_ms": 1000}, "resume_at_ms must be an integer >= 6000"),
    ({"poll_timeout_ms": 0}, "poll_timeout_ms"),
    ({"kafka_version": "5.0"}, "Unsupported kafka_version"),
])
def test_bad_input_is_a_config_error(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        PauseScenario(**kwargs)


def test_from_2_0_a_polls_timeout_covers_the_join_before_it_counts_from_the_joins_end():
    """KIP-266 (2.0): `poll(Duration)` returns when its timeout passes, join or not; `poll(long)` before it
    blocks in the join and counts its timeout from there. consumer-3 joins at 12,000 and the join completes at
    15,000 (the others' heartbeat); with 1,001 ms polls, its poll then ends at 15,003, before the first fetch
    comes back (10 ms): from 2.0 it returns nothing and the application pauses the new partitions first; in
    1.1 that poll waits for the fetch and returns its records while the application means to be paused."""
    def seen(version):
        ev = simulate_pause(kafka_version=version, poll_timeout_ms=1001).events
        ev = ev[(ev.member == "consumer-3") & ev.time.between(15_000, 15_010)
                & ev.kind.isin(["Paused", "RecordsReturned"])]
        return list(zip(ev.time, ev.kind, ev.partition, ev.reason))

    assert seen("2.0") == [(15_003, "Paused", 4, "application"), (15_003, "Paused", 5, "application")]
    assert seen("1.1") == [(15_010, "RecordsReturned", 4, "unexpected_new_fetch"),
                           (15_010, "Paused", 4, "application"), (15_010, "Paused", 5, "application")]


def test_auto_commits_come_every_interval_from_the_joins_end_even_in_a_paused_poll():
    """onJoinComplete starts the auto-commit timer (ConsumerCoordinator `nextAutoCommitTimer.updateAndReset`):
    the join ends at 3,000, so commits are due every 5,000 ms from there; a poll waiting on paused partitions
    wakes for one at 8,000 (its own timeout would end it at 8,010); a commit writes only the partitions whose
    position moved: nothing while paused, everything once resumed and consumed (28,000)."""
    ev = simulate_pause(changes=()).events
    commits = ev[ev.kind == "Commit"]
    assert sorted(set(commits.time)) == [8_000, 28_000]
    assert (commits[commits.time == 28_000].value == 5_000).all() and len(commits) == 12


def test_before_2_0_a_paused_poll_still_returns_after_its_timeout_so_the_application_resumes():
    """poll(long) (before KIP-266) counts its timeout from the join only when it joined: a poll on paused
    partitions returns empty after its 2,000 ms, whatever woke it meanwhile (the auto-commits at 8,000, 13,000
    ...). The paused polls run from 6,010 to 8,010, ..., 22,010 to 24,010: the application resumes at 24,010 and
    consumes everything."""
    run = simulate_pause(kafka_version="1.1", changes=())
    ev = run.events
    resumed = ev[ev.kind == "Resumed"]
    assert len(resumed) == 6 and (resumed.time == 24_010).all()
    assert run.summary["unprocessed_at_end"] == 0


def test_a_fetch_names_the_partitions_with_nothing_buffered_and_waits_fetch_max_wait_ms_when_none_has_data():
    """600 records a partition, all of them in one fetch (1 MiB / 1 KiB records); 500 a poll (max.poll.records),
    200 ms to process them. consumer-1 fetches its 3 partitions when the join ends (3,000), then partition 0 alone
    once its buffer runs dry (3,210), at its end: that fetch answers after fetch.max.wait.ms (500 ms, at 3,710). From
    3,730 everything is consumed and every fetch (3 partitions) waits 500 ms."""
    ev = simulate_pause(changes=(), records_per_partition=600, pause_at_ms=30_000, resume_at_ms=None).events
    fetches = ev[(ev.member == "consumer-1") & (ev.kind == "FetchSent") & (ev.time < 6_000)]
    assert list(zip(fetches.time, fetches.value)) == [(3_000, 3), (3_210, 1), (3_730, 3), (4_230, 3), (4_730, 3),
                                                      (5_230, 3), (5_730, 3)]


def test_a_partition_two_members_claim_stays_with_the_newer_generations_claim():
    """The sticky assignor (eager) sends each member's last assignment with its generation (KIP-341). consumer-2,
    expelled at 12,000, learns it at 15,000 (UNKNOWN_MEMBER_ID, its generation reset) and rejoins claiming its
    generation-1 partitions 1 and 4, which generation 2 gave to consumer-4. The newer claim wins both; then
    `constrainedAssign` lets two members keep two (consumer-1, consumer-3, first by member id) and consumer-4 its
    first one: partition 4 goes to consumer-2."""
    ev = simulate_pause(assignor="sticky", members=3, changes=((12_000, "lost", "consumer-2"), (12_500, "join"))).events
    failed = ev[ev.kind == "HeartbeatFailed"]
    assert list(zip(failed.time, failed.member, failed.error, failed.generation)) == [
        (15_000, "consumer-2", "UNKNOWN_MEMBER_ID", 1)]
    gen2, gen3 = (ev[(ev.kind == "PartitionsAssigned") & (ev.generation == g)] for g in (2, 3))
    assert dict(gen2.groupby("member").partition.agg(list)) == {"consumer-1": [0, 3], "consumer-3": [2, 5],
                                                                "consumer-4": [1, 4]}
    assert dict(gen3.groupby("member").partition.agg(list)) == {"consumer-1": [0, 3], "consumer-2": [4],
                                                                "consumer-3": [2, 5], "consumer-4": [1]}


def test_members_learn_of_a_rebalance_at_their_next_heartbeat_on_their_own_grid():
    """Heartbeats every 3,000 ms from a member's last join: consumer-3 joins at 13,000; the others, whose join ended
    at 3,000, learn of the rebalance at 15,000 and rejoin; consumer-3's own heartbeat at 16,000 finds the group
    stable and asks for nothing."""
    ev = simulate_pause(changes=((13_000, "join"),)).events
    joins = ev[ev.kind == "JoinGroup"]
    assert list(zip(joins.time, joins.member)) == [(0, "consumer-1"), (0, "consumer-2"), (13_000, "consumer-3"),
                                                   (15_000, "consumer-1"), (15_000, "consumer-2")]


@pytest.mark.parametrize("version, protocol, cleared", [("2.3", EAGER, {"fresh_state": 6}),
                                                        ("2.4", EAGER, {"revocation": 6}),
                                                        ("3.7", EAGER, {"revocation": 6}),
                                                        ("3.7", COOPERATIVE, {"revocation": 2})])
def test_the_rebalance_clears_the_pause_flags_it_takes_away_for_its_versions_reason(version, protocol, cleared):
    """consumer-3 joins at 12,000 while the others have paused their 6 partitions: before 2.4 the assignment
    replaces the state (fresh_state); from 2.4 (KAFKA-8179) eager revocation clears all the flags, cooperative
    only those of the 2 partitions that move to consumer-3 (KIP-429)."""
    assert simulate_pause(kafka_version=version, protocol=protocol).summary["pause_flags_cleared"] == cleared


def test_without_a_rebalance_from_2_4_every_record_is_fetched_once():
    assert simulate_pause(kafka_version="3.7", changes=()).summary["records_fetched"] == 6 * 5_000


def test_a_record_larger_than_max_partition_fetch_bytes_still_comes_one_at_a_time():
    """KIP-74: a fetch returns at least one record, however large."""
    ev = simulate_pause(record_bytes=4096, consumer={"max.partition.fetch.bytes": 1024}, changes=(),
                        duration_ms=3_100).events
    first = ev[(ev.kind == "RecordsReturned") & (ev.time == 3_010)]
    assert list(zip(first.member, first.partition, first.value)) == [
        ("consumer-1", 0, 1), ("consumer-1", 1, 1), ("consumer-1", 2, 1), ("consumer-2", 3, 1), ("consumer-2", 4, 1),
        ("consumer-2", 5, 1)]


def test_the_summarys_unexpected_records_by_member_add_up_that_members_unexpected_batches():
    run = simulate_pause(app_loop="pause_once")
    rows = run.events[(run.events.kind == "RecordsReturned") & run.events.reason.notna()]
    assert rows.groupby("member").size().min() >= 2
    assert run.summary["unexpected_by_member"] == {m: int(n) for m, n in rows.groupby("member").value.sum().items()}


def test_a_consumers_rows_before_its_first_generation_carry_no_generation():
    """NO_GENERATION (-1) is shown as none: only the members' first JoinGroup rows, at 0, have no generation."""
    ev = simulate_pause(changes=()).events
    none = ev[(ev.source == "consumer") & ev.generation.isna()]
    assert list(zip(none.time, none.member, none.kind)) == [(0, "consumer-1", "JoinGroup"), (0, "consumer-2", "JoinGroup")]


def test_each_partitions_processed_rows_add_up_to_its_records_when_nothing_rebalances():
    ev = simulate_pause(changes=()).events
    processed = ev[ev.kind == "Processed"].groupby("partition").value.sum()
    assert processed.to_dict() == {p: 5_000 for p in range(6)}


def test_the_loops_resume_writes_a_resumed_row_for_each_partition_it_paused():
    ev = simulate_pause(changes=()).events
    paused, resumed = (ev[ev.kind == kind] for kind in ("Paused", "Resumed"))
    assert (paused.time < 24_000).all() and (resumed.time >= 24_000).all()
    assert list(zip(resumed.member, resumed.partition)) == list(zip(paused.member, paused.partition)) == [
        ("consumer-1", 0), ("consumer-1", 1), ("consumer-1", 2), ("consumer-2", 3), ("consumer-2", 4), ("consumer-2", 5)]


def test_the_consumer_level_pause_proposal_pauses_and_resumes_each_member_once_where_the_loop_would():
    """proposal_consumer_pause: one Paused and one Resumed row per member, for no partition, with the
    proposal's reason, at the polls where the KAFKA-13463 loop pauses and resumes its partitions; after the
    resume the members consume everything."""
    plain = simulate_pause(changes=()).events
    run = simulate_pause(remedy="proposal_consumer_pause", changes=())
    ev = run.events
    rows = ev[ev.kind.isin(["Paused", "Resumed"])]
    firsts = plain[plain.kind.isin(["Paused", "Resumed"])].drop_duplicates(["member", "kind"])
    reason = {"Paused": "proposal: consumer-level pause()", "Resumed": "proposal: consumer-level resume()"}
    assert list(zip(rows.time, rows.member, rows.kind, rows.reason)) == [
        (t, m, k, reason[k]) for t, m, k in zip(firsts.time, firsts.member, firsts.kind)]
    assert rows.partition.isna().all()
    assert run.summary["unprocessed_at_end"] == 0


def test_the_application_is_paused_from_pause_at_ms_up_to_but_not_at_resume_at_ms():
    s = PauseScenario(pause_at_ms=6_000, resume_at_ms=24_000)
    assert [s.phase(t) for t in (5_999, 6_000, 23_999, 24_000)] == ["consuming", "paused", "paused", "consuming"]
    assert s.replace(resume_at_ms=None).phase(10**9) == "paused"  # never resumed


def test_a_change_at_time_zero_is_accepted_and_a_change_without_a_member_names_none():
    assert PauseScenario(changes=((0, "leave"),)).changes == ((0, "leave", None),)


def test_a_leave_when_no_member_is_left_is_a_config_error_naming_no_live_member():
    with pytest.raises(ConfigError, match="'leave' names None, but the live members are none$"):
        simulate_pause(members=1, changes=((12_000, "leave"), (13_000, "leave")))


def test_the_summarys_discarded_records_are_the_discard_rows_summed_per_reason():
    """Before 2.4 every poll discards the paused partitions' fetched data: several RecordsDiscarded rows
    of one reason, which the summary adds up."""
    run = simulate_pause(kafka_version="2.3", changes=())
    rows = run.events[run.events.kind == "RecordsDiscarded"]
    assert rows.groupby("reason").size().min() >= 2
    assert run.summary["records_discarded"] == {r: int(n) for r, n in rows.groupby("reason")["value"].sum().items()}


INT_LOWS = {"members": 1, "partitions": 1, "records_per_partition": 1, "record_bytes": 1, "pause_at_ms": 0,
            "duration_ms": 1, "poll_timeout_ms": 1, "fetch_latency_ms": 0}


@pytest.mark.parametrize("name", INT_LOWS)
def test_each_int_input_accepts_its_lower_bound_and_refuses_one_below_by_name(name):
    low = INT_LOWS[name]
    bound = {name: low, **({"resume_at_ms": None} if name == "pause_at_ms" else {})}
    assert getattr(PauseScenario(**bound), name) == low
    with pytest.raises(ConfigError) as refused:
        PauseScenario(**{name: low - 1})
    assert str(refused.value) == f"{name} must be an integer >= {low}, got {low - 1}"


@pytest.mark.parametrize("value, ok", [(0, True), (0.25, True), (2, True), (-0.1, False), (math.inf, False),
                                       (math.nan, False), (True, False), ("1", False)])
def test_record_processing_ms_is_a_finite_number_of_ms_at_least_zero(value, ok):
    if ok:
        assert PauseScenario(record_processing_ms=value).record_processing_ms == value
        return
    with pytest.raises(ConfigError) as refused:
        PauseScenario(record_processing_ms=value)
    assert str(refused.value) == f"record_processing_ms must be a number >= 0, got {value!r}"


def test_a_choice_refused_names_every_valid_one():
    from kafkasim.client.pause_resume import APP_LOOPS
    for field, choices in (("app_loop", APP_LOOPS), ("remedy", REMEDIES)):
        with pytest.raises(ConfigError) as refused:
            PauseScenario(**{field: "sometimes"})
        assert str(refused.value) == f"{field} must be one of {', '.join(choices)}; got 'sometimes'"
    with pytest.raises(ConfigError) as refused:
        PauseScenario(assignor="cooperative-sticky")
    assert str(refused.value) == ("eager assignor (partition.assignment.strategy) must be one of range, roundrobin, "
                                  "sticky, got 'cooperative-sticky'")


def test_the_cooperative_protocol_takes_cooperative_sticky_named_or_by_default():
    for assignor in (None, "cooperative-sticky"):
        assert PauseScenario(protocol=COOPERATIVE, assignor=assignor).strategy == "cooperative-sticky"


def test_a_change_naming_an_unknown_member_is_a_config_error():
    with pytest.raises(ConfigError, match="consumer-9.*live members are consumer-1, consumer-2"):
        simulate_pause(changes=((12_000, "leave", "consumer-9"),))


def test_a_member_that_leaves_mid_rebalance_is_no_longer_awaited_and_the_coordinator_logs_its_removal():
    """_Group.remove: LeaveGroup drops the member from those the join waits for (Kafka's
    GroupCoordinator.removeMemberAndUpdateGroup, then the join completes once every remaining member
    has rejoined), and the coordinator records MemberRemoved under the group's generation.
    Hand timeline: the initial join completes after group.initial.rebalance.delay.ms (3000, KIP-134);
    consumer-3 joins at 12 000 and leaves 1 ms later, before the others learn of the rebalance at their
    next heartbeat (heartbeat.interval.ms 3000: 15 000), where both rejoin and generation 2 stabilizes."""
    ev = simulate_pause(changes=((12_000, "join"), (12_001, "leave", "consumer-3")), resume_at_ms=None,
                        duration_ms=30_000).events
    coordinator = ev[ev.source == "coordinator"]
    rows = [(r.time, r.member, r.kind, r.generation, r.reason, None if math.isnan(r.value) else r.value)
            for r in coordinator.itertuples()]
    assert rows == [(0, None, "RebalanceStarted", 0, "member consumer-1 joined", None),
                    (3000, None, "GenerationStabilized", 1, None, 2),
                    (12_000, None, "RebalanceStarted", 1, "member consumer-3 joined", None),
                    (12_001, "consumer-3", "MemberRemoved", 1, "leave_group", None),
                    (15_000, None, "GenerationStabilized", 2, None, 2)]
