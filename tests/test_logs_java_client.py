"""The Java consumer's lines (kafkasim.analysis.logs.java_client), as pasted: each line's expected event is
written by hand from the format string in Kafka's source at the release named beside it
(clients/.../consumer/internals/AbstractCoordinator.java, ConsumerCoordinator.java,
ConsumerRebalanceListenerInvoker.java, MembershipManagerImpl.java / AbstractMembershipManager.java,
HeartbeatRequestManager.java / AbstractHeartbeatRequestManager.java; common/config/AbstractConfig.java;
common/utils/AppInfoParser.java), in the layouts people paste: log4j's `[%d] %p %m (%c)%n`, Spring
Boot's logback default, docker compose and Kubernetes prefixes, redacted ids."""

from __future__ import annotations

import random
from datetime import datetime

import pytest
from hypothesis import given, settings

from kafkasim.analysis.logs import COUNTS, MAX_LINE_CHARS, ROW_FIELDS, parse_lines
from kafkasim.analysis.logs.reader import MAX_BLOCK_LINES
from reader_properties import assert_read_whole, mixes

ORIGIN = datetime(2024, 3, 5)
LOGGER = " (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"
PREFIX = "[Consumer clientId=consumer-orders-1, groupId=orders] "
#: 2024-03-05 20:21:14.681, in ms since ORIGIN
T = ((20 * 60 + 21) * 60 + 14) * 1000 + 681
KEYS = ("time", "source", "group", "member", "kind", "generation", "topic", "partition", "error", "reason", "value",
        "log_source", "versions", "detail", "client", "instance")


def log4j(message: str, prefix: str = PREFIX, level: str = "INFO", logger: str = LOGGER) -> str:
    """A line of log4j's `[%d] %p %m (%c)%n` (Kafka's own config/tools-log4j.properties layout)."""
    return f"[2024-03-05 20:21:14,681] {level} {prefix}{message}{logger}"


def rows(text) -> list[dict]:
    result = parse_lines(text, origin=ORIGIN)
    assert result.unparsed == [], result.unparsed
    return [{k: v for k, v in zip(ROW_FIELDS, r) if k in KEYS} for r in result.rows]


def expected(kind, versions, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", group="orders", kind=kind, log_source="java", versions=versions,
               client="consumer-orders-1")
    row.update(fields)
    return row


GEN = "Generation{generationId=5, memberId='consumer-orders-1-7f3a', protocol='range'}"
NODE = "broker-1:9092 (id: 2147483646 rack: null)"
POLL = ("consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than "
        "the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time "
        "processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the "
        "maximum size of batches returned in poll() with max.poll.records.")


@pytest.mark.parametrize("message,events", [
    # AbstractCoordinator.java 1.1 - 4.x: log.info("(Re-)joining group")
    ("(Re-)joining group", [expected("JoinGroup", "1.1-")]),
    # 1.0 - 2.6: log.info("Successfully joined group with generation {}", generation.generationId)
    ("Successfully joined group with generation 5", [expected("JoinGroupResponse", "1.1-", generation=5)]),
    # 2.7+: the same with the Generation (Generation.toString: generationId, memberId, protocol)
    (f"Successfully joined group with generation {GEN}",
     [expected("JoinGroupResponse", "1.1-", generation=5, member="consumer-orders-1-7f3a", reason="range")]),
    # 2.7+: log.info("Successfully synced group in generation {}", generation)
    (f"Successfully synced group in generation {GEN}",
     [expected("SyncGroupResponse", "2.7-", generation=5, member="consumer-orders-1-7f3a", reason="range")]),
    # 1.0 - 2.8: HeartbeatResponseHandler on REBALANCE_IN_PROGRESS
    ("Attempt to heartbeat failed since group is rebalancing",
     [expected("HeartbeatResponse", "1.0-2.8", error="REBALANCE_IN_PROGRESS")]),
    # 1.0 - 2.5: on UNKNOWN_MEMBER_ID ("failed for since" is Kafka's own typo)
    ("Attempt to heartbeat failed for since member id consumer-orders-1-7f3a is not valid.",
     [expected("HeartbeatResponse", "1.0-2.5", error="UNKNOWN_MEMBER_ID", member="consumer-orders-1-7f3a")]),
    # 2.6+: "Attempt to heartbeat with {} and group instance id {} failed due to {}, resetting generation"
    (f"Attempt to heartbeat with {GEN} and group instance id Optional.empty failed due to UNKNOWN_MEMBER_ID, "
     "resetting generation",
     [expected("HeartbeatResponse", "2.6-", error="UNKNOWN_MEMBER_ID", generation=5, member="consumer-orders-1-7f3a")]),
    (f"Attempt to heartbeat with stale {GEN} and group instance id Optional[pod-0] failed due to ILLEGAL_GENERATION, "
     "ignoring the error",
     [expected("HeartbeatResponse", "2.6-", error="ILLEGAL_GENERATION", generation=5,
               member="consumer-orders-1-7f3a", reason="stale")]),
    # 2.7+: "JoinGroup failed: {} Need to re-join the group. Sent generation was {}" with error.message()
    (f"JoinGroup failed: The coordinator is not aware of this member. Need to re-join the group. Sent generation "
     f"was {GEN}",
     [expected("JoinGroupResponse", "2.7-", error="UNKNOWN_MEMBER_ID", generation=5,
               member="consumer-orders-1-7f3a")]),
    (f"SyncGroup failed: The group began another rebalance. Need to re-join the group. Sent generation was {GEN}",
     [expected("SyncGroupResponse", "2.7-", error="REBALANCE_IN_PROGRESS", generation=5,
               member="consumer-orders-1-7f3a")]),
    # 2.4+: AbstractCoordinator.handlePollTimeoutExpiry (a WARN)
    (POLL, [expected("PollTimeout", "2.4-", reason="poll_timeout")]),
    # 2.4+: "Member {} sending LeaveGroup request to coordinator {} due to {}"
    (f"Member consumer-orders-1-7f3a sending LeaveGroup request to coordinator {NODE} due to consumer poll timeout "
     "has expired.",
     [expected("LeaveGroup", "2.2-", member="consumer-orders-1-7f3a", reason="consumer poll timeout has expired.",
               detail=NODE)]),
    (f"Discovered group coordinator {NODE}", [expected("CoordinatorDiscovered", "1.1-", detail=NODE)]),
    # 3.7+ under group.protocol=consumer: CoordinatorRequestManager prints the response's Coordinator, not a Node
    ("Discovered group coordinator Coordinator(key='orders', nodeId=1, host='kafka', port=29092, errorCode=0, "
     "errorMessage='')", [expected("CoordinatorDiscovered", "1.1-", detail="Coordinator(key='orders', nodeId=1, "
                                   "host='kafka', port=29092, errorCode=0, errorMessage='')")]),
    # 2.7+: "Group coordinator {} is unavailable or invalid due to cause: {}. isDisconnected: {}. Rediscovery ..."
    (f"Group coordinator {NODE} is unavailable or invalid due to cause: coordinator unavailable. isDisconnected: "
     "false. Rediscovery will be attempted.",
     [expected("CoordinatorLost", "2.7-", reason="coordinator unavailable", detail=NODE)]),
    ("Request joining group due to: group is already rebalancing",
     [expected("RejoinRequested", "3.0-", reason="group is already rebalancing")]),
    ("Resetting generation and member id due to: consumer pro-actively leaving the group",
     [expected("GenerationReset", "2.4-", reason="consumer pro-actively leaving the group")]),
    # 2.4+ (3.7+ ConsumerRebalanceListenerInvoker): Utils.join(partitions, ", ")
    ("Revoke previously assigned partitions orders-0, orders-1",
     [expected("PartitionsRevoked", "2.4-", topic="orders", partition=0),
      expected("PartitionsRevoked", "2.4-", topic="orders", partition=1)]),
    ("Adding newly assigned partitions: ", [expected("PartitionsAssigned", "2.4-", value=0.0)]),
    # 1.0 - 2.1: "Setting newly assigned partitions {}" with a Set's toString
    ("Setting newly assigned partitions [my-topic-2]",
     [expected("PartitionsAssigned", "1.0-2.3", topic="my-topic", partition=2)]),
    ("Lost previously assigned partitions orders-3",
     [expected("PartitionsLost", "2.4-", topic="orders", partition=3)]),
    ("Finished assignment for group at generation 5: {consumer-orders-1-7f3a=Assignment(partitions=[orders-0])}",
     [expected("AssignmentComputed", "2.4-", generation=5)]),
    # group.protocol=consumer: MembershipManagerImpl.java 3.7 - 3.9, AbstractMembershipManager.java 4.x
    ("Member Hx9sW3kZQeK0 with epoch 3 transitioned from STABLE to FENCED.",
     [expected("MemberTransition", "3.7-", member="Hx9sW3kZQeK0", reason="FENCED", detail="STABLE", value=3.0)]),
    # AbstractHeartbeatRequestManager.java 4.x: logInfo("{} in {}ms: {}", message, backoff, errorMessage)
    ("ConsumerGroupHeartbeatRequest failed for member Hx9sW3kZQeK0 because epoch 3 is fenced. in 0ms: The consumer "
     "group member has a smaller member epoch (3) than the one known by the group coordinator (5). The member must "
     "abandon all its partitions and rejoin.",
     [expected("ConsumerGroupHeartbeat", "4.0-", error="FENCED_MEMBER_EPOCH", generation=3, member="Hx9sW3kZQeK0")]),
    # HeartbeatRequestManager.java 3.7 - 3.9: the same with "GroupHeartbeatRequest"
    ("GroupHeartbeatRequest failed because member Hx9sW3kZQeK0 is unknown. in 0ms: null",
     [expected("ConsumerGroupHeartbeat", "3.7-3.9", error="UNKNOWN_MEMBER_ID", member="Hx9sW3kZQeK0")]),
    ("ConsumerGroupHeartbeatRequest failed due to unreleased instance id pod-0: Instance id pod-0 is in use.",
     [expected("ConsumerGroupHeartbeat", "4.0-", error="UNRELEASED_INSTANCE_ID")]),
    # onErrorResponse's default case: an error with no case of its own (v8.0.0 - v8.3.0)
    ("ConsumerGroupHeartbeatRequest failed due to unexpected error GROUP_ID_NOT_FOUND: Group orders is not a consumer "
     "group.", [expected("ConsumerGroupHeartbeat", "4.0-", error="GROUP_ID_NOT_FOUND")]),
    ("Consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the "
     "configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time "
     "processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the "
     "maximum size of batches returned in poll() with max.poll.records.",
     [expected("PollTimeout", "3.8-", reason="poll_timeout")]),
    ("Time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, exceeded "
     "approximately by 1523 ms. Member Hx9sW3kZQeK0 will rejoin the group now.",
     [expected("PollTimeoutRejoin", "3.8-", member="Hx9sW3kZQeK0", value=1523.0)]),
])
def test_each_wording_reads_as_its_event(message, events):
    assert rows([log4j(message)]) == events


def test_a_spring_boot_logback_line_reads_the_same():
    """Spring Boot's default console layout: date, level, pid, `---`, thread, abbreviated logger, `:`."""
    line = ("2024-03-05 20:21:14.681  INFO 1 --- [ntainer#0-0-C-1] o.a.k.c.c.internals.ConsumerCoordinator  : "
            f"{PREFIX}Adding newly assigned partitions: orders-0, orders-1")
    assert rows([line]) == [expected("PartitionsAssigned", "2.4-", topic="orders", partition=0),
                            expected("PartitionsAssigned", "2.4-", topic="orders", partition=1)]


def test_container_prefixes_and_a_static_members_instance_id():
    """docker compose's `service-1  | `, a Kubernetes CRI line (its own stamp first, the app's date wins)."""
    static = "[Consumer instanceId=pod-0, clientId=consumer-orders-1, groupId=orders] "
    compose = "app-1  | " + log4j("(Re-)joining group", prefix=static)
    cri = "2024-03-05T20:21:14.700000000Z stdout F " + log4j("(Re-)joining group")
    assert rows([compose, cri]) == [expected("JoinGroup", "1.1-", instance="pod-0"), expected("JoinGroup", "1.1-")]


def test_redacted_ids_are_kept_as_they_are():
    line = log4j("(Re-)joining group", prefix="[Consumer clientId=<redacted>, groupId=***] ")
    assert rows([line]) == [expected("JoinGroup", "1.1-", group="***", client="<redacted>")]


def test_a_consumer_without_a_group_names_none():
    """KafkaConsumer prints groupId=null (Optional.orElse("null")) for a consumer that assigns partitions itself."""
    line = log4j("Discovered group coordinator " + NODE, prefix="[Consumer clientId=c-2, groupId=null] ")
    assert rows([line]) == [expected("CoordinatorDiscovered", "1.1-", group=None, client="c-2", detail=NODE)]


def test_an_instance_id_of_null_in_a_prefix_names_no_static_member():
    """An `instanceId=null` prefix (a wrapper printing an absent Optional as Java's "null") is no static member,
    as groupId=null is no group."""
    line = log4j("(Re-)joining group", prefix="[Consumer instanceId=null, clientId=c-2, groupId=orders] ")
    assert rows([line]) == [expected("JoinGroup", "1.1-", client="c-2")]


CONFIG = """[2024-03-05 20:21:14,681] INFO ConsumerConfig values: 
	allow.auto.create.topics = true
	auto.commit.interval.ms = 5000
	bootstrap.servers = [broker-1:9092]
	client.id = consumer-orders-1
	group.id = orders
	group.instance.id = null
	group.protocol = classic
	heartbeat.interval.ms = 3000
	max.poll.interval.ms = 300000
	partition.assignment.strategy = [class org.apache.kafka.clients.consumer.RangeAssignor, class org.apache.kafka.clients.consumer.CooperativeStickyAssignor]
	session.timeout.ms = 45000
 (org.apache.kafka.clients.consumer.ConsumerConfig)
[2024-03-05 20:21:14,690] INFO Kafka version: 3.7.0 (org.apache.kafka.common.utils.AppInfoParser)"""


def config(name, text, value=None) -> dict:
    return expected("ClientConfig", None, reason=name, detail=text, value=value)


def test_the_consumer_config_block_gives_the_settings_of_a_rebalance():
    """AbstractConfig.logAll: "ConsumerConfig values: ", then `\\tname = value` per config sorted by name,
    one log record (so log4j prints the logger after the last line); AppInfoParser's version after it."""
    settings = [config("group.id", "orders"), config("client.id", "consumer-orders-1"),
                config("group.instance.id", "null"), config("group.protocol", "classic"),
                config("session.timeout.ms", "45000", 45000.0), config("heartbeat.interval.ms", "3000", 3000.0),
                config("max.poll.interval.ms", "300000", 300000.0),
                config("partition.assignment.strategy", "[class org.apache.kafka.clients.consumer.RangeAssignor, "
                                                        "class org.apache.kafka.clients.consumer.CooperativeStickyAssignor]"),
                config("auto.commit.interval.ms", "5000", 5000.0)]
    version = expected("KafkaVersion", "1.0-", time=T + 9, group=None, client=None, detail="3.7.0")
    result = parse_lines(CONFIG, origin=ORIGIN)
    assert [{k: v for k, v in zip(ROW_FIELDS, r) if k in KEYS} for r in result.rows] == [*settings, version]
    assert [r[ROW_FIELDS.index("line")] for r in result.rows] == [1] * len(settings) + [14]
    assert result.counts["lines"] == 14 and result.counts["other"] == 0 and result.unparsed == []


def block(*settings: str) -> list[str]:
    """A "ConsumerConfig values:" block as log4j's `[%d] %p %m (%c)%n` prints it (AbstractConfig.logAll)."""
    return (["[2024-03-05 20:21:14,681] INFO ConsumerConfig values: "] + [f"\t{s}" for s in settings]
            + [" (org.apache.kafka.clients.consumer.ConsumerConfig)"])


def test_every_setting_of_a_static_members_block_names_its_instance():
    """A static member's block: KafkaConsumer names the member by its group.instance.id (its LogContext's
    `instanceId=`), and ConsumerConfig.maybeOverrideClientId makes its client.id `consumer-<group>-<instance>`."""
    lines = block("client.id = consumer-orders-pod-0", "group.id = orders", "group.instance.id = pod-0",
                  "session.timeout.ms = 45000")
    static = {"client": "consumer-orders-pod-0", "instance": "pod-0"}
    assert rows(lines) == [config("group.id", "orders") | static,
                           config("client.id", "consumer-orders-pod-0") | static,
                           config("group.instance.id", "pod-0") | static,
                           config("session.timeout.ms", "45000", 45000.0) | static]


def test_an_empty_group_instance_id_names_no_static_member():
    """2.3 - 3.2 (3.3 added ConfigDef.NonEmptyString to group.instance.id) a consumer given group.instance.id=""
    and a client.id logs its block, then fails: JoinGroupRequest.validateGroupInstanceId ("Group instance id must
    be non-empty string"). No member has that instance id."""
    lines = block("client.id = consumer-orders-1", "group.id = orders", "group.instance.id = ")
    assert rows(lines) == [config("group.id", "orders"), config("client.id", "consumer-orders-1"),
                           config("group.instance.id", "")]


def test_a_block_written_on_windows_is_read_without_its_carriage_returns():
    """logAll ends each `\\tname = value` with Utils.NL (the JVM's line.separator, "\\r\\n" on Windows) and
    log4j's `%n` the record: the log's lines are split on "\\n", the "\\r" is no part of a value."""
    lines = block("group.id = orders", "session.timeout.ms = 45000")
    assert rows("\r\n".join(lines) + "\r\n") == [config("group.id", "orders") | {"client": None},
                                                 config("session.timeout.ms", "45000", 45000.0) | {"client": None}]


def test_a_block_header_without_its_settings_is_a_known_record_without_events():
    """`grep ConsumerConfig` keeps the block's first line and its last (the logger log4j prints after the
    message), not the `\\tname = value` lines between: one record of the consumer's, no event, not split off."""
    result = parse_lines([block()[0], block()[-1]], origin=ORIGIN)
    assert result.rows == [] and result.unparsed == []
    assert {k: result.counts[k] for k in COUNTS} == {"lines": 2, "coordinator": 1, "events": 0, "ignored": 1,
                                                     "unparsed": 0, "salvaged": 0, "joined": 0, "other": 0,
                                                     "split": 0, "inferred": 0, "unreadable": 0}


def test_a_block_is_read_up_to_its_line_limit():
    """A block is read up to MAX_BLOCK_LINES `name = value` lines (logAll prints one per config the consumer
    defines, a few dozen): the lines past the limit are no part of it, but other loggers' lines."""
    filler = [f"a{i:03d} = 1" for i in range(MAX_BLOCK_LINES - 1)]
    result = parse_lines(block("group.id = orders", *filler, "session.timeout.ms = 45000"), origin=ORIGIN)
    assert [(r[4], r[9]) for r in result.rows] == [("ClientConfig", "group.id")]
    assert (result.counts["lines"], result.counts["other"]) == (MAX_BLOCK_LINES + 3, 2)


def test_a_block_line_is_read_up_to_the_line_limit():
    """Every line is read up to MAX_LINE_CHARS characters, a block's as well: a longer value is cut there."""
    head = "\tclient.id = "
    lines = block("group.id = orders")
    lines.insert(1, head + "c" * MAX_LINE_CHARS)
    result = parse_lines(lines, origin=ORIGIN)
    assert [r[ROW_FIELDS.index("client")] for r in result.rows] == ["c" * (MAX_LINE_CHARS - len(head))] * 2


def test_the_config_block_behind_a_compose_prefix_and_in_logback():
    lines = ["app-1  | 20:21:14.681 [main] INFO  o.a.k.clients.consumer.ConsumerConfig - ConsumerConfig values: ",
             "app-1  | \tgroup.id = orders", "app-1  | \tsession.timeout.ms = 10000",
             "app-1  | 20:21:14.700 [main] INFO  o.a.k.common.utils.AppInfoParser - Kafka version: 3.9.0"]
    result = parse_lines(lines, origin=ORIGIN)
    assert [(r[4], r[9], r[ROW_FIELDS.index("detail")]) for r in result.rows] == [
        ("ClientConfig", "group.id", "orders"), ("ClientConfig", "session.timeout.ms", "10000"),
        ("KafkaVersion", None, "3.9.0")]


def test_a_cut_line_of_a_strict_wording_is_kept_aside_with_why():
    line = "[2024-03-05 20:21:14,681] INFO " + PREFIX + "Successfully joined group with generation Generation{gen"
    result = parse_lines([line], origin=ORIGIN)
    assert result.rows == [] and [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated or unrecognised wording")]


@pytest.mark.parametrize("cut", ["…", "...", ""])
def test_a_line_cut_right_after_the_consumer_prefix_is_kept_aside_as_truncated(cut):
    """Nothing of the message is left (cut at `...`/`…`, or no logger after the head of Kafka's layout
    `[%d] %p %m (%c)%n`: docs/log-reader.md), so it could begin any of the strict wordings: kept aside as
    truncated and counted as unparsed, not as an ignored line of the consumer's."""
    line = "[2024-03-05 20:21:14,681] INFO " + PREFIX + cut
    result = parse_lines([line], origin=ORIGIN)
    assert result.rows == [] and result.unparsed == [("<lines>", 1, "truncated", line)]
    assert {k: result.counts[k] for k in ("lines", "coordinator", "ignored", "unparsed")} == {
        "lines": 1, "coordinator": 1, "ignored": 0, "unparsed": 1}


def test_other_consumer_lines_are_counted_not_read():
    """A consumer line of no rebalance wording (there are many) is a known source's line without an event."""
    result = parse_lines([log4j("Subscribed to topic(s): orders"), log4j("Resetting offset for partition orders-0 "
                                                                         "to position FetchPosition{offset=0}.")])
    assert result.rows == [] and result.unparsed == [] and result.counts["ignored"] == 2


PIECES = [PREFIX, "[Consumer ", "[Consumer clientId=", "groupId=", "] ", "(Re-)joining group", GEN, "Generation{",
          "Successfully joined group with generation ", "ConsumerConfig values: ", "\tgroup.id = x", "Kafka version: ",
          " (org.apache.kafka.clients.consumer.internals.AbstractCoordinator)", "[2024-03-05 20:21:14,681] INFO ",
          "│", "\x00", "{\"log\":\"", "\n", "partitions ", "orders-", "-1", "99999999999999999999", "Optional[", "…"]


@settings(max_examples=300, deadline=None)
@given(mixes(PIECES))
def test_any_mix_of_consumer_pieces_is_never_fatal(lines):
    assert_read_whole(lines, ORIGIN)


def test_a_long_line_built_to_backtrack_costs_little():
    rng = random.Random(7)
    line = log4j("Attempt to heartbeat with " + "Generation{generationId=5, memberId='" * 20_000 + rng.choice("ab"))
    result = parse_lines([line, log4j("(Re-)joining group")], origin=ORIGIN)
    assert [r[4] for r in result.rows] == ["JoinGroup"]


def test_a_partition_list_strips_only_its_brackets():
    """wording.topic_partitions: `[a-0, b-1]` (a Collection) or `a-0, b-1` (Utils.join) loses its brackets only:
    a topic's own first or last letters stay (X, here)."""
    from kafkasim.analysis.logs.wording import topic_partitions

    assert topic_partitions("[Xray-0, orders-1]") == topic_partitions("Xray-0, orders-1") == [("Xray", 0), ("orders", 1)]
