"""Properties of a share partition over random sequences of acquisitions by several members,
acknowledgements of every type, lock expiries, session releases and leader failovers, in 4.2, 4.3
and 4.4 (with and without a dead-letter queue): the guarantees KIP-932 gives (Kafka's
`SharePartition.java`, `InFlightState.tryUpdateState`), checked against a model kept by the test:

- no record is acknowledged (ACCEPT) twice, and none is delivered again once accepted, rejected or
  archived, across failovers too (the new leader loads what was written);
- a delivery count never exceeds the delivery limit;
- no record is held by two members at once (an acquisition only takes records nobody holds);
- SPSO never moves back while one leader keeps the partition;
- 4.4: each record reaches the DLQ at most once, and only when rejected or archived at the limit.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkasim import Errors, Simulation
from kafkasim.coordinator.modern.share import SharePartition
from kafkasim.coordinator.modern.share.partition import CLIENT_REJECT, DELIVERY_COUNT_EXCEEDED

MEMBERS = ("m1", "m2", "m3")
STEP = st.one_of(
    st.tuples(st.just("acquire"), st.sampled_from(MEMBERS), st.integers(1, 20), st.integers(1, 10), st.booleans()),
    st.tuples(st.just("ack"), st.sampled_from(MEMBERS), st.integers(0, 50), st.integers(0, 6),
              st.sampled_from(["ACCEPT", "RELEASE", "REJECT", "GAP", "RENEW"])),
    st.tuples(st.just("advance"), st.integers(1, 120)),
    st.tuples(st.just("release"), st.sampled_from(MEMBERS)),
    st.tuples(st.just("failover")),
)


class Model:
    """What the test knows independently of the partition: holders, accepted and finished offsets."""

    def __init__(self):
        self.holder: dict[int, str] = {}
        self.accepted: set[int] = set()
        self.finished: set[int] = set()   # ACKNOWLEDGED or ARCHIVED at some point
        self.produced = 0


def new_partition(sim, version, limit, config, persisted=None) -> SharePartition:
    sp = SharePartition(sim, "g", "t", 0, kafka_version=version, max_in_flight_records=30,
                        max_delivery_count=limit, default_record_lock_duration_ms=60, group_config=lambda: config)
    if persisted is not None:
        sp.load_state(*persisted)
    return sp


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(version=st.sampled_from(["4.2", "4.3", "4.4"]), limit=st.integers(2, 4), dlq=st.booleans(),
       steps=st.lists(STEP, max_size=50))
def test_share_partition_guarantees(version, limit, dlq, steps):
    sim = Simulation(seed=3)
    config = {"errors.deadletterqueue.topic.name": "dlq.t"} if dlq and version == "4.4" else {}
    sp = new_partition(sim, version, limit, config)
    model, last_start, dlq_seen = Model(), sp.start_offset, []
    for action in steps:
        if action[0] == "acquire":
            _, member, size, max_records, record_limit = action
            start = sp.next_fetch_offset
            model.produced = max(model.produced, start + size)
            got = sp.acquire(member, max_records, log_batches=[(start, model.produced - 1)],
                             acquire_mode="record_limit" if record_limit else "batch_optimized")
            for first, last, count in got:
                assert 1 <= count <= limit
                for o in range(first, last + 1):
                    assert o not in model.holder, f"offset {o} acquired by {member} while {model.holder.get(o)} holds it"
                    assert o not in model.finished, f"offset {o} delivered again after a terminal state"
                    model.holder[o] = member
        elif action[0] == "ack":
            _, member, first, length, kind = action
            held = {o for o in range(first, first + length + 1) if model.holder.get(o) == member}
            error = sp.acknowledge(member, [(first, first + length, kind)])
            if error is Errors.NONE and kind == "ACCEPT":
                for o in range(max(first, 0), first + length + 1):
                    if o in held:
                        assert o not in model.accepted, f"offset {o} acknowledged twice"
                        model.accepted.add(o)
            if error is not Errors.NONE:
                assert all(sp.state(o) == "ACQUIRED" for o in held if o >= sp.start_offset)  # rolled back
        elif action[0] == "advance":
            sim.advance(action[1])
        elif action[0] == "release":
            assert sp.release_all(action[1]) is Errors.NONE
        else:  # the leader moves: a new SharePartition loads what the share coordinator holds
            dlq_seen += sp.dlq_records
            persisted = sp.persisted_state()
            for offset in list(model.holder):  # the old leader's locks die with it
                del model.holder[offset]
            sim = Simulation(seed=3)
            sp = new_partition(sim, version, limit, config, persisted)
            last_start = sp.start_offset
        for offset in list(model.holder):
            if sp.state(offset) != "ACQUIRED":
                del model.holder[offset]
        for first, last in sp.cached_batches():
            for o in range(first, last + 1):
                state, count = sp.state(o), sp.delivery_count(o)
                assert 0 <= count <= limit
                assert (sp.owner(o) != "") == (state == "ACQUIRED")
                if state == "ACQUIRED":
                    assert model.holder.get(o) == sp.owner(o)
                if state in ("ACKNOWLEDGED", "ARCHIVED"):
                    model.finished.add(o)
                elif o >= sp.start_offset:
                    assert o not in model.finished, f"offset {o} left a terminal state"
        model.finished.update(range(0, sp.start_offset))
        assert sp.start_offset >= last_start, "SPSO moved back"
        last_start = sp.start_offset
    records = dlq_seen + sp.dlq_records
    enqueued = [o for r in records for o in range(r.first_offset, r.last_offset + 1)]
    assert len(enqueued) == len(set(enqueued)), "a record reached the DLQ twice"
    assert not set(enqueued) & model.accepted
    for r in records:
        assert r.cause in (CLIENT_REJECT, DELIVERY_COUNT_EXCEEDED)
        assert r.cause == CLIENT_REJECT or r.delivery_count >= limit
    if not config:
        assert records == []
