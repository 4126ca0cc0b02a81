"""The consumer's own log, as the Java client or librdkafka writes it, for one simulated consumer.

The broker's side is `kafkasim.coordinator.broker_log`; this is the client's, fed by the simulated
consumer (`client.consumer`, `client.consumer_membership`) at the moments the real client logs,
with the run's times and ids. Three writers, made by `client_log(style, ...)`:

- `JavaClassicLog`: the Java `KafkaConsumer` under the classic protocol, 2.7 to 4.x, read at the
  tags 2.7.0, 2.8.0, 3.0.0, 3.2.0, 3.3.0, 3.7.0, 3.9.0-rc3 (apache/kafka) and v8.0.0, v8.3.0
  (confluentinc/kafka = Apache 4.0.0, 4.3.0): `AbstractCoordinator.java`, `ConsumerCoordinator.java`,
  `ConsumerRebalanceListenerInvoker.java` (3.7+) in `clients/src/main/java/org/apache/kafka/clients/
  consumer/internals/`. Where a line changed, the version is given beside it (the commit that
  changed it, found with `git log -S`, first released in that version).
- `JavaConsumerProtocolLog`: the same consumer under `group.protocol=consumer` (KIP-848, 4.0+):
  `AbstractMembershipManager.java` (logger `ConsumerMembershipManager`) and
  `AbstractHeartbeatRequestManager.java` (logger `ConsumerHeartbeatRequestManager`) at v8.0.0 and v8.3.0.
- `LibrdkafkaLog`: librdkafka's classic consumer group (`src/rdkafka_cgrp.c` at v2.8.0) with
  `debug=cgrp`: the debug lines (level 7) of the JOINGROUP, SYNCGROUP, ASSIGN, HEARTBEAT and
  REBALANCE contexts, and the warnings (level 4) every librdkafka consumer prints, MAXPOLL and
  SESSTMOUT. Its layout is `rd_kafka_log_print` (`src/rdkafka.c`): `%level|secs.ms|FAC|name| msg`,
  the message starting `[thrd:main]: ` (`rd_kafka_log0`).

Layouts: Java lines follow the log4j pattern Kafka's tools ship, `[%d] %p %m (%c)%n`
(`config/tools-log4j.properties`), with the `LogContext` prefix `[Consumer clientId=..., groupId=...] `
(`[Consumer instanceId=..., clientId=..., groupId=...] ` for a static member; `KafkaConsumer.java`,
`ConsumerUtils.createLogContext` from 3.7). A message with newlines (Kafka's "Updating assignment
with\\n...") spans several lines, as in a real file, its logger on the last one.

What is made up or simplified, so that readers can tell: the coordinator is `localhost:9092`, broker
0 (`Node.toString`: id 2147483647 = Integer.MAX_VALUE - 0 for the coordinator connection; 4.0 adds
`isFenced: false`); a librdkafka process is `rdkafka#consumer-1`, its member ids `rdkafka-<uuid>`
(the world sets `client.id=rdkafka` when none is given); librdkafka wording is written over the
Java consumer's behaviour, which the simulator models (librdkafka also leaves the group on a
session timeout, which the simulated consumer does not); backoffs are printed without jitter.
Before 3.2 Kafka prints partition sets in `HashSet` order (`hash_set_order`); within a bucket the
simulator puts them in topic-partition order, where Kafka keeps its insertion order. Lines below
INFO are not written for Java (a default client log has none); commit, fetch and offset-reset
lines (`Setting offset for partition ...`, `Found no committed offset ...`), the leader's
`Finished assignment for group at generation ...` and the consumer protocol's coordinator
rediscovery are not written.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from kafkasim.client.subscription_state import TopicPartition, tp_str
from kafkasim.core.config import parse_version
from kafkasim.core.errors import ConfigError
from kafkasim.core.java import int32, java_string_hash
from kafkasim.core.log_time import log4j_time, unix_time


STYLES = ("java", "librdkafka")
#: The first Java release whose classic-protocol lines are written (earlier wording was not read).
JAVA_FIRST = (2, 7)
LIBRDKAFKA_VERSION = "2.8.0"
COORDINATOR_HOST, COORDINATOR_PORT, BROKER_ID = "localhost", 9092, 0

_PKG = "org.apache.kafka.clients.consumer.internals."
COORDINATOR_LOGGER = _PKG + "ConsumerCoordinator"  # AbstractCoordinator logs as getClass(): ConsumerCoordinator
INVOKER_LOGGER = _PKG + "ConsumerRebalanceListenerInvoker"
MEMBERSHIP_LOGGER = _PKG + "ConsumerMembershipManager"
HEARTBEAT_LOGGER = _PKG + "ConsumerHeartbeatRequestManager"

#: AbstractCoordinator.HeartbeatThread at 3.0.0-4.3 (WARN); before 3.0 the same words were the LeaveGroup reason.
POLL_TIMEOUT_TEXT = (
    "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than "
    "the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time "
    "processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the "
    "maximum size of batches returned in poll() with max.poll.records.")
#: AbstractHeartbeatRequestManager.poll at v8.0.0-v8.3.0 (WARN): the same words, capitalised.
CONSUMER_POLL_TIMEOUT_TEXT = "C" + POLL_TIMEOUT_TEXT[1:]
SESSION_TIMED_OUT = "session timed out without receiving a heartbeat response"  # HeartbeatThread, 2.8.0+

#: librdkafka's `rd_kafka_err2str` (`src/rdkafka.c` at v2.8.0) for every error the classic coordinator answers a
#: heartbeat with (`_heartbeat`; an empty group.id never joins): an error missing here fails with a KeyError.
RDKAFKA_ERRORS = {"NONE": "Success", "REBALANCE_IN_PROGRESS": "Broker: Group rebalance in progress",
                  "UNKNOWN_MEMBER_ID": "Broker: Unknown member",
                  "ILLEGAL_GENERATION": "Broker: Specified group generation id is not valid",
                  "FENCED_INSTANCE_ID": "Broker: Static consumer fenced by other consumer with same group.instance.id",
                  "NOT_COORDINATOR": "Broker: Not coordinator",
                  "COORDINATOR_NOT_AVAILABLE": "Broker: Coordinator not available"}


def topic_partition_hash(tp: TopicPartition) -> int:
    """`TopicPartition.hashCode`: 31 * (31 + partition) + topic.hashCode(), as a Java int."""
    return int32(31 * (31 + tp[1]) + java_string_hash(tp[0]))


def hash_set_order(tps: Iterable[TopicPartition]) -> list[TopicPartition]:
    """The iteration order of `new HashSet<>(collection)`: the table has `tableSizeFor(max(size / .75
    + 1, 16))` buckets, and a partition's bucket is `(h ^ h >>> 16) & (buckets - 1)`. Ties keep
    topic-partition order (see the module doc)."""
    tps = sorted(tps)
    n = len(tps)
    buckets = 16
    while buckets < int(n / 0.75) + 1:
        buckets *= 2

    def bucket(tp: TopicPartition) -> int:
        h = topic_partition_hash(tp) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (buckets - 1)
    return sorted(tps, key=bucket)


def java_list(tps: Sequence[TopicPartition]) -> str:
    """A Java collection's `toString`: [a-0, a-1]."""
    return "[" + ", ".join(map(tp_str, tps)) + "]"


def joined(tps: Sequence[TopicPartition]) -> str:
    """`Utils.join(partitions, ", ")` (empty: nothing)."""
    return ", ".join(map(tp_str, tps))


def generation_text(generation: int, member_id: str, protocol: str | None) -> str:
    """`AbstractCoordinator.Generation.toString`."""
    return f"Generation{{generationId={generation}, memberId='{member_id}', protocol='{protocol}'}}"


class ClientLog:
    """The lines of one consumer, in one client's wording. Every hook is a moment the simulated
    consumer reaches; a client that logs nothing then keeps the no-op of this base class."""

    def __init__(self, lines: list[str], kafka_version, client_id: str, group_id: str,
                 instance_id: str | None = None):
        self.lines = lines
        self.version = parse_version(kafka_version)
        self.client_id, self.group_id, self.instance_id = client_id, group_id, instance_id
        self.coordinator_known = True

    def started(self, ms: int) -> None:
        """A new process: it finds the coordinator first."""
        self.coordinator_known = True
        self.discovered(ms)

    # -- hooks of the classic protocol (no-ops unless a client logs them) ---------------------
    def discovered(self, ms: int) -> None: ...
    def joining(self, ms: int) -> None: ...
    def member_id_required(self, ms: int, member_id: str) -> None: ...
    def joined(self, ms: int, generation: int, member_id: str, protocol: str, leader: str, members: int) -> None: ...
    def synced(self, ms: int, generation: int, member_id: str, protocol: str,
               assignment: Sequence[TopicPartition]) -> None: ...
    def assigned(self, ms: int, assignment: Sequence[TopicPartition], owned: Sequence[TopicPartition],
                 cooperative: bool) -> None: ...
    def lost(self, ms: int, owned: Sequence[TopicPartition]) -> None: ...
    def revoked(self, ms: int, owned: Sequence[TopicPartition]) -> None: ...
    def heartbeat_error(self, ms: int, error: str, generation: int, member_id: str, protocol: str | None,
                        owned: int, cooperative: bool) -> None: ...
    def poll_timeout(self, ms: int, member_id: str, leave_sent: bool, over_ms: int, max_poll_ms: int) -> None: ...
    def commit_refused(self, ms: int) -> None: ...
    def commit_failed(self, ms: int, error: str, message: str, generation: int, member_id: str,
                      protocol: str | None) -> None: ...
    def closing(self, ms: int, member_id: str) -> None: ...
    def session_expired(self, ms: int, elapsed_ms: int, last_error: str) -> None: ...

    # -- hooks of the consumer protocol ---------------------------------------------------------
    def transition(self, ms: int, member_id: str, epoch: int, old: str, new: str) -> None: ...
    def reconciling(self, ms: int, local_epoch: int, member_id: str, assigned: Sequence[TopicPartition],
                    owned: Sequence[TopicPartition]) -> None: ...
    def heartbeat_fenced(self, ms: int, error: str, member_id: str, epoch: int, backoff_ms: int,
                         message: str) -> None: ...
    def heartbeat_fatal(self, ms: int, error: str, message: str) -> None: ...
    def stale_rejoin(self, ms: int, member_id: str, over_ms: int) -> None: ...

    def coordinator_lost(self, ms: int, elapsed_ms: int, last_error: str) -> None:
        """The heartbeat thread finds no successful heartbeat for session.timeout.ms (a long GC
        pause, a network cut): said once, until the coordinator is reached again."""
        if self.coordinator_known:
            self.coordinator_known = False
            self.session_expired(ms, elapsed_ms, last_error)

    def coordinator_reached(self, ms: int) -> None:
        if not self.coordinator_known:
            self.coordinator_known = True
            self.discovered(ms)


class JavaLog(ClientLog):
    """What both Java consumers share: the log4j layout and the LogContext prefix."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        who = f"instanceId={self.instance_id}, " if self.instance_id is not None else ""
        self.prefix = f"[Consumer {who}clientId={self.client_id}, groupId={self.group_id}] "
        fenced = " isFenced: false" if self.version >= (4, 0) else ""  # Node.toString, 4.0+
        self.node = f"{COORDINATOR_HOST}:{COORDINATOR_PORT} (id: {2**31 - 1 - BROKER_ID} rack: null{fenced})"

    def write(self, ms: int, message: str, logger: str = COORDINATOR_LOGGER, level: str = "INFO") -> None:
        first, *rest = message.split("\n")
        self.lines.append(f"[{log4j_time(ms)}] {level} {self.prefix}{first}" + ("" if rest else f" ({logger})"))
        if rest:
            rest[-1] += f" ({logger})"
            self.lines.extend(rest)

    def assignment_table(self, title: str, assigned, owned, added, revoked) -> str:
        """The aligned table of `onJoinComplete` (2.6.0+, KAFKA-9113) and `reconcile` (v8.0.0)."""
        return (f"{title}\n"
                f"\tAssigned partitions:                       {java_list(assigned)}\n"
                f"\tCurrent owned partitions:                  {java_list(owned)}\n"
                f"\tAdded partitions (assigned - owned):       {java_list(added)}\n"
                f"\tRevoked partitions (owned - assigned):     {java_list(revoked)}\n")


class JavaClassicLog(JavaLog):
    """AbstractCoordinator / ConsumerCoordinator, 2.7 to 4.x."""

    def _set(self, tps: Iterable[TopicPartition]) -> list[TopicPartition]:
        """A partition set as Kafka iterates it: a TreeSet from 3.2 (MINOR #11584), a HashSet before."""
        return sorted(tps) if self.version >= (3, 2) else hash_set_order(tps)

    def _invoker(self) -> str:
        """The rebalance callbacks' logger: ConsumerRebalanceListenerInvoker from 3.7 (KAFKA-15628, #14638)."""
        return INVOKER_LOGGER if self.version >= (3, 7) else COORDINATOR_LOGGER

    def _rejoin(self, ms: int, reason: str) -> None:
        """`requestRejoin`: logged from 3.0 (KAFKA-12352)."""
        if self.version >= (3, 0):
            self.write(ms, f"Request joining group due to: {reason}")

    def _reset(self, ms: int, reason: str, member_id_too: bool = True) -> None:
        """`resetStateAndRejoin`: from 3.0 (KAFKA-12352), "and member id" from 3.2 (KAFKA-13419)."""
        if self.version >= (3, 2):
            self.write(ms, f"Resetting generation {'and member id ' if member_id_too else ''}due to: {reason}")
        elif self.version >= (3, 0):
            self.write(ms, f"Resetting generation due to: {reason}")
        self._rejoin(ms, reason)

    def discovered(self, ms):
        self.write(ms, f"Discovered group coordinator {self.node}")

    def joining(self, ms):
        self.write(ms, "(Re-)joining group")

    def member_id_required(self, ms, member_id):
        if self.version >= (3, 2):  # KAFKA-13419 added the id
            self._rejoin(ms, f"need to re-join with the given member-id: {member_id}")
        else:
            self._rejoin(ms, "need to re-join with the given member-id")

    def joined(self, ms, generation, member_id, protocol, leader, members):
        self.write(ms, f"Successfully joined group with generation {generation_text(generation, member_id, protocol)}")

    def synced(self, ms, generation, member_id, protocol, assignment):
        self.write(ms, f"Successfully synced group in generation {generation_text(generation, member_id, protocol)}")

    def assigned(self, ms, assignment, owned, cooperative):
        """`onJoinComplete`: the table and the revocation (cooperative), the assignor told, then
        onPartitionsAssigned with what was added."""
        assigned = self._set(assignment)
        added = [tp for tp in assigned if tp not in set(owned)]  # a copy of `assigned`: its order
        if cooperative:
            owned_set = self._set(owned)
            revoked = [tp for tp in owned_set if tp not in set(assignment)]
            self.write(ms, self.assignment_table("Updating assignment with", assigned, owned_set, added, revoked))
            if revoked:
                self.write(ms, f"Revoke previously assigned partitions {joined(revoked)}", self._invoker())
                self._rejoin(ms, f"need to revoke partitions {java_list(revoked)} as indicated by the current "
                                 f"assignment and re-join")
        # ConsumerCoordinator.invokeOnAssignment, since 2.6.0 (KAFKA-9823, #8445): every version written here
        self.write(ms, f"Notifying assignor about the new Assignment(partitions={java_list(assignment)})")
        self.write(ms, f"Adding newly assigned partitions: {joined(added)}", self._invoker())

    def lost(self, ms, owned):
        if self.version >= (3, 2):  # KAFKA-13419
            why = "generation/memberID has been reset,indicating that consumer is in old state or no longer part of the group"
        else:
            why = "generation has been reset,indicating that consumer is no longer part of the group"
        self.write(ms, f"Giving away all assigned partitions as lost since {why}")
        self.write(ms, f"Lost previously assigned partitions {joined(self._set(owned))}", self._invoker())

    def revoked(self, ms, owned):
        self.write(ms, f"Revoke previously assigned partitions {joined(self._set(owned))}", self._invoker())

    def heartbeat_error(self, ms, error, generation, member_id, protocol, owned, cooperative):
        if error == "REBALANCE_IN_PROGRESS":
            if self.version >= (3, 0):
                self._rejoin(ms, "group is already rebalancing")
            else:
                self.write(ms, "Attempt to heartbeat failed since group is rebalancing")
        elif error in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
            instance = "Optional.empty" if self.instance_id is None else f"Optional[{self.instance_id}]"
            self.write(ms, f"Attempt to heartbeat with {generation_text(generation, member_id, protocol)} and group "
                           f"instance id {instance} failed due to {error}, resetting generation")
            self._reset(ms, f"encountered {error} from HEARTBEAT response", error != "ILLEGAL_GENERATION")

    def commit_refused(self, ms):
        """`sendOffsetCommitRequest` out of the group (2.4.0, 3.7.0)."""
        self.write(ms, "Failing OffsetCommit request since the consumer is not part of an active group")

    def commit_failed(self, ms, error, message, generation, member_id, protocol):
        """`OffsetCommitResponseHandler` (2.6.0+, KAFKA-9823), then the reset (3.0+)."""
        self.write(ms, f"OffsetCommit failed with {generation_text(generation, member_id, protocol)}: {message}")
        self._reset(ms, f"encountered {error} from OFFSET_COMMIT response", error != "ILLEGAL_GENERATION")

    def _leave(self, ms: int, member_id: str, reason: str) -> None:
        self.write(ms, f"Member {member_id} sending LeaveGroup request to coordinator {self.node} due to {reason}")

    def poll_timeout(self, ms, member_id, leave_sent, over_ms, max_poll_ms):
        """HeartbeatThread: before 3.0 the reason is the whole text and nothing else is logged."""
        if self.version < (3, 0):
            if leave_sent:
                self._leave(ms, member_id, POLL_TIMEOUT_TEXT)
            return
        self.write(ms, POLL_TIMEOUT_TEXT, level="WARN")
        if leave_sent:
            self._leave(ms, member_id, "consumer poll timeout has expired.")
        self._reset(ms, "consumer pro-actively leaving the group")

    def closing(self, ms, member_id):
        self._leave(ms, member_id, "the consumer is being closed")
        self._reset(ms, "consumer pro-actively leaving the group")

    def session_expired(self, ms, elapsed_ms, last_error):
        """`markCoordinatorUnknown` from the heartbeat thread's session check (isDisconnected false)."""
        if self.version >= (2, 8):  # KAFKA-10839 gave the cause; the missing space came back in 3.3
            space = " " if self.version >= (3, 3) else ""
            self.write(ms, f"Group coordinator {self.node} is unavailable or invalid due to cause: {SESSION_TIMED_OUT}."
                           f"{space}isDisconnected: false. Rediscovery will be attempted.")
        else:
            self.write(ms, f"Group coordinator {self.node} is unavailable or invalid, will attempt rediscovery")
        if self.version >= (3, 2):  # MINOR: Log client disconnect events at INFO level (#11449)
            self.write(ms, f"Requesting disconnect from last known coordinator {self.node}")


class JavaConsumerProtocolLog(JavaLog):
    """The AsyncKafkaConsumer's membership and heartbeat managers (KIP-848), 4.0+."""

    def discovered(self, ms):
        # CoordinatorRequestManager.onSuccessfulResponse logs its parameter, which hides the Node field of the same
        # name: the response's FindCoordinatorResponseData.Coordinator (its generated toString, 3.7 - 4.4). The
        # broker sets no ErrorMessage (KafkaApis.handleFindCoordinatorRequestV4AndAbove): the field's default, "".
        self.write(ms, f"Discovered group coordinator Coordinator(key='{self.group_id}', nodeId={BROKER_ID}, "
                       f"host='{COORDINATOR_HOST}', port={COORDINATOR_PORT}, errorCode=0, errorMessage='')",
                   _PKG + "CoordinatorRequestManager")

    def transition(self, ms, member_id, epoch, old, new):
        self.write(ms, f"Member {member_id} with epoch {epoch} transitioned from {old} to {new}.", MEMBERSHIP_LOGGER)

    def reconciling(self, ms, local_epoch, member_id, assigned, owned):
        assigned, owned = sorted(assigned), sorted(owned)
        added = [tp for tp in assigned if tp not in set(owned)]
        revoked = [tp for tp in owned if tp not in set(assigned)]
        table = self.assignment_table(f"Reconciling assignment with local epoch {local_epoch}", assigned, owned, added,
                                      revoked)
        title, rest = table.split("\n", 1)
        self.write(ms, f"{title}\n\tMember:                                    {member_id}\n{rest}", MEMBERSHIP_LOGGER)
        if revoked:  # a Set's toString from 4.1, Utils-style join in 4.0
            shown = java_list(revoked) if self.version >= (4, 1) else joined(revoked)
            self.write(ms, f"Revoking previously assigned partitions {shown}", MEMBERSHIP_LOGGER)

    def heartbeat_fenced(self, ms, error, member_id, epoch, backoff_ms, message):
        """`onErrorResponse` (`logInfo`: "{message} in {backoff}ms: {error message}")."""
        if error == "FENCED_MEMBER_EPOCH":
            text = f"ConsumerGroupHeartbeatRequest failed for member {member_id} because epoch {epoch} is fenced."
        else:
            text = f"ConsumerGroupHeartbeatRequest failed because member {member_id} is unknown."
        self.write(ms, f"{text} in {backoff_ms}ms: {message}", HEARTBEAT_LOGGER)

    def heartbeat_fatal(self, ms, error, message):
        """`onErrorResponse` of an error the member cannot heartbeat on from (ERROR, before the
        transition to FATAL): the instance-id errors have their own wording
        (`ConsumerHeartbeatRequestManager.handleSpecificError`), a few named errors "failed due to
        {error}", any other "failed due to unexpected error {error}" (v8.0.0 - v8.3.0)."""
        request = "ConsumerGroupHeartbeatRequest"
        if error == "UNRELEASED_INSTANCE_ID":
            text = f"{request} failed due to unreleased instance id {self.instance_id}: {message}"
        elif error == "FENCED_INSTANCE_ID":
            text = (f"{request} failed due to fenced instance id {self.instance_id}: {message}. This is expected in "
                    "the case that the member was removed from the group by an admin client, and another member "
                    "joined using the same group instance id.")
        elif error in ("INVALID_REQUEST", "GROUP_MAX_SIZE_REACHED", "UNSUPPORTED_ASSIGNOR", "UNSUPPORTED_VERSION"):
            text = f"{request} failed due to {error}: {message}"
        else:
            text = f"{request} failed due to unexpected error {error}: {message}"
        self.write(ms, text, HEARTBEAT_LOGGER, "ERROR")

    def poll_timeout(self, ms, member_id, leave_sent, over_ms, max_poll_ms):
        self.write(ms, CONSUMER_POLL_TIMEOUT_TEXT, HEARTBEAT_LOGGER, "WARN")

    def stale_rejoin(self, ms, member_id, over_ms):
        self.write(ms, f"Time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, "
                       f"exceeded approximately by {over_ms} ms. Member {member_id} will rejoin the group now.",
                   HEARTBEAT_LOGGER, "WARN")


class LibrdkafkaLog(ClientLog):
    """librdkafka v2.8.0 (`rdkafka_cgrp.c`) with debug=cgrp, classic protocol."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = f"{self.client_id}#consumer-1"  # rk_name: client.id, the type, one handle per process
        self.join_state = "init"

    def started(self, ms):
        super().started(ms)
        self.join_state = "init"

    def write(self, ms: int, facility: str, message: str, level: int = 7) -> None:
        self.lines.append(f"%{level}|{unix_time(ms)}|{facility}|{self.name}| [thrd:main]: {message}")

    def joined(self, ms, generation, member_id, protocol, leader, members):
        """`rd_kafka_cgrp_handle_JoinGroup`: the response, and the leader's election."""
        me = " (me)" if leader == member_id else ""
        self.write(ms, "JOINGROUP", f"JoinGroup response: GenerationId {generation}, Protocol {protocol}, LeaderId "
                                    f"{leader}{me}, my MemberId {member_id}, member metadata count {members}: (no error)")
        if me:
            self.write(ms, "JOINGROUP", f'I am elected leader for group "{self.group_id}" with {members} member(s)')
        self.join_state = "wait-sync"

    def synced(self, ms, generation, member_id, protocol, assignment):
        """`rd_kafka_cgrp_handle_SyncGroup`; the MemberState is what a librdkafka leader writes
        (`rd_kafka_group_MemberState_consumer_write`, rdkafka_request.c): version (2), topic count
        (4), per topic its name (2 + length), partition count (4) and partitions (4 each), and
        null user data (4)."""
        topics: dict[str, int] = {}
        for topic, _ in assignment:
            topics[topic] = topics.get(topic, 0) + 1
        size = 2 + 4 + sum(2 + len(t.encode()) + 4 + 4 * n for t, n in topics.items()) + 4
        self.write(ms, "SYNCGROUP", f"SyncGroup response: Success ({size} bytes of MemberState data)")

    def assigned(self, ms, assignment, owned, cooperative):
        """`rd_kafka_cgrp_handle_assignment`."""
        self.write(ms, "ASSIGN", f'Group "{self.group_id}": new assignment of {len(assignment)} partition(s) in '
                                 f"join-state {self.join_state}")
        self.join_state = "steady"

    def joining(self, ms):
        self.join_state = "wait-join"

    def heartbeat_error(self, ms, error, generation, member_id, protocol, owned, cooperative):
        """`rd_kafka_cgrp_handle_Heartbeat`, then `rd_kafka_cgrp_revoke_all_rejoin` (EAGER)."""
        self.write(ms, "HEARTBEAT", f'Group "{self.group_id}" heartbeat error response in state up (join-state '
                                    f"{self.join_state}, {owned} partition(s) assigned): {RDKAFKA_ERRORS[error]}")
        reasons = {"REBALANCE_IN_PROGRESS": ("is rebalancing", "", "rebalance in progress"),
                   "UNKNOWN_MEMBER_ID": ("initiating rebalance", " (lost)", "resetting member-id"),
                   "ILLEGAL_GENERATION": ("initiating rebalance", " (lost)", "illegal generation")}
        if error in reasons and not (cooperative and error == "REBALANCE_IN_PROGRESS"):
            what, lost, reason = reasons[error]
            protocol_name = "COOPERATIVE" if cooperative else "EAGER"
            self.write(ms, "REBALANCE", f'Group "{self.group_id}" {what} ({protocol_name}) in state up (join-state '
                                        f"{self.join_state}) with {owned} assigned partition(s){lost}: {reason}")

    def poll_timeout(self, ms, member_id, leave_sent, over_ms, max_poll_ms):
        """`rd_kafka_cgrp_handle_max_poll_exceeded` (a warning, printed without debug)."""
        self.write(ms, "MAXPOLL", f"Application maximum poll interval ({max_poll_ms}ms) exceeded by {over_ms}ms "
                                  f"(adjust max.poll.interval.ms for long-running message processing): leaving group", 4)

    def session_expired(self, ms, elapsed_ms, last_error):
        """`rd_kafka_cgrp_session_timeout_check` (a warning). The last error is the last heartbeat response's
        (`rkcg_last_heartbeat_err`): a heartbeat sent into a silent cut is still in flight when the session
        expires (its timeout is session.timeout.ms, and no other is sent meanwhile), so a cut shows the answer
        before it, usually Success."""
        self.write(ms, "SESSTMOUT", f"Consumer group session timed out (in join-state {self.join_state}) after "
                                    f"{elapsed_ms} ms without a successful response from the group coordinator (broker "
                                    f"{BROKER_ID}, last error was {RDKAFKA_ERRORS[last_error]}): "
                                    f"revoking assignment and rejoining group", 4)


def check_client_log(style, kafka_version, group_protocol: str | None) -> None:
    """A ConfigError naming what is written, for a style or version that is not."""
    if style is None:
        return
    if style not in STYLES:
        raise ConfigError(f"client_log must be None, 'java' or 'librdkafka', got {style!r}")
    v = parse_version(kafka_version)
    if style == "java" and v < JAVA_FIRST:
        raise ConfigError(f"client_log='java' writes the Java consumer's lines of Kafka 2.7 and later; Kafka "
                          f"{kafka_version}'s wording was not read: use kafka_version='2.7' or later")
    if style == "librdkafka" and group_protocol == "consumer":
        raise ConfigError("client_log='librdkafka' writes librdkafka's classic consumer group lines; its "
                          "group.protocol=consumer wording is not modelled: use client_log='java'")


def client_log(style: str, lines: list[str], kafka_version, client_id: str, group_id: str,
               instance_id: str | None = None, group_protocol: str | None = None) -> ClientLog:
    """The writer of one consumer process's lines, appended to `lines`."""
    check_client_log(style, kafka_version, group_protocol)
    if style == "librdkafka":
        cls: type[ClientLog] = LibrdkafkaLog
    else:
        cls = JavaConsumerProtocolLog if group_protocol == "consumer" else JavaClassicLog
    return cls(lines, kafka_version, client_id, group_id, instance_id)
