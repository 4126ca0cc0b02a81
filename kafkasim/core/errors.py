"""Kafka's protocol error codes, and the errors kafkasim raises for bad input.

Names, codes and messages follow `clients/src/main/java/org/apache/kafka/common/protocol/Errors.java`
so that a learner meets exactly what a broker would return (`Errors.GROUP_MAX_SIZE_REACHED.code == 81`).
Only the codes the simulated group, consumer and broker paths can produce are listed.
"""

from __future__ import annotations

import difflib
from enum import Enum


class Errors(Enum):
    """A Kafka protocol error: `.code` is the wire code, `.message` Kafka's default message."""

    def __new__(cls, code: int, message: str, exception: str | None):
        obj = object.__new__(cls)
        obj._value_ = code
        obj.message = message
        obj.exception = exception
        return obj

    @property
    def code(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"Errors.{self.name}"

    def __str__(self) -> str:
        return self.name

    UNKNOWN_SERVER_ERROR = (-1, "The server experienced an unexpected error when processing the request.",
                            "UnknownServerException")
    NONE = (0, "", None)
    OFFSET_OUT_OF_RANGE = (1, "The requested offset is not within the range of offsets maintained by the server.",
                           "OffsetOutOfRangeException")
    UNKNOWN_TOPIC_OR_PARTITION = (3, "This server does not host this topic-partition.",
                                  "UnknownTopicOrPartitionException")
    INVALID_FETCH_SIZE = (4, "The requested fetch size is invalid.", "InvalidFetchSizeException")
    REQUEST_TIMED_OUT = (7, "The request timed out.", "TimeoutException")
    MESSAGE_TOO_LARGE = (10, "The request included a message larger than the max message size the server will accept.",
                         "RecordTooLargeException")
    NETWORK_EXCEPTION = (13, "The server disconnected before a response was received.", "NetworkException")
    COORDINATOR_LOAD_IN_PROGRESS = (14, "The coordinator is loading and hence can't process requests.",
                                    "CoordinatorLoadInProgressException")
    COORDINATOR_NOT_AVAILABLE = (15, "The coordinator is not available.", "CoordinatorNotAvailableException")
    NOT_COORDINATOR = (16, "This is not the correct coordinator.", "NotCoordinatorException")
    RECORD_LIST_TOO_LARGE = (18, "The request included message batch larger than the configured segment size on the server.",
                             "RecordBatchTooLargeException")
    ILLEGAL_GENERATION = (22, "Specified group generation id is not valid.", "IllegalGenerationException")
    INCONSISTENT_GROUP_PROTOCOL = (23, "The group member's supported protocols are incompatible with those of existing members "
                                       "or first group member tried to join with empty protocol type or empty protocol list.",
                                   "InconsistentGroupProtocolException")
    INVALID_GROUP_ID = (24, "The configured groupId is invalid.", "InvalidGroupIdException")
    UNKNOWN_MEMBER_ID = (25, "The coordinator is not aware of this member.", "UnknownMemberIdException")
    INVALID_SESSION_TIMEOUT = (26, "The session timeout is not within the range allowed by the broker "
                                   "(as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).",
                               "InvalidSessionTimeoutException")
    REBALANCE_IN_PROGRESS = (27, "The group is rebalancing, so a rejoin is needed.", "RebalanceInProgressException")
    INVALID_COMMIT_OFFSET_SIZE = (28, "The committing offset data size is not valid.", "InvalidCommitOffsetSizeException")
    UNSUPPORTED_VERSION = (35, "The version of API is not supported.", "UnsupportedVersionException")
    INVALID_CONFIG = (40, "Configuration is invalid.", "InvalidConfigurationException")
    INVALID_REQUEST = (42, "This most likely occurs because of a request being malformed by the client library or "
                           "the message was sent to an incompatible broker. See the broker logs for more details.",
                       "InvalidRequestException")
    NON_EMPTY_GROUP = (68, "The group is not empty.", "GroupNotEmptyException")
    GROUP_ID_NOT_FOUND = (69, "The group id does not exist.", "GroupIdNotFoundException")
    MEMBER_ID_REQUIRED = (79, "The group member needs to have a valid member id before actually entering a consumer group.",
                          "MemberIdRequiredException")
    GROUP_MAX_SIZE_REACHED = (81, "The consumer group has reached its max size.", "GroupMaxSizeReachedException")
    FENCED_INSTANCE_ID = (82, "The broker rejected this static consumer since another consumer with the same "
                              "group.instance.id has registered with a different member.id.",
                          "FencedInstanceIdException")
    FENCED_MEMBER_EPOCH = (110, "The member epoch is fenced by the group coordinator. The member must abandon all "
                                "its partitions and rejoin.", "FencedMemberEpochException")
    UNRELEASED_INSTANCE_ID = (111, "The instance ID is still used by another member in the consumer group. "
                                   "That member must leave first.", "UnreleasedInstanceIdException")
    UNSUPPORTED_ASSIGNOR = (112, "The assignor or its version range is not supported by the consumer group.",
                            "UnsupportedAssignorException")
    STALE_MEMBER_EPOCH = (113, "The member epoch is stale. The member must retry after receiving its updated member "
                               "epoch via the ConsumerGroupHeartbeat API.", "StaleMemberEpochException")
    INVALID_RECORD_STATE = (121, "The record state is invalid. The acknowledgement of delivery could not be "
                                 "completed.", "InvalidRecordStateException")
    INVALID_REGULAR_EXPRESSION = (128, "The regular expression is not valid.", "InvalidRegularExpression")

    @classmethod
    def for_code(cls, code: int) -> "Errors":
        """The error with this wire code (ValueError naming the code when unknown)."""
        try:
            return cls(code)
        except ValueError:
            raise ValueError(f"unknown Kafka error code {code}") from None


class KafkaException(Exception):
    """A Kafka error surfaced as an exception, as the Java client would throw it."""

    def __init__(self, error: Errors, detail: str = ""):
        self.error = error
        name = error.exception or error.name
        super().__init__(f"{name} ({error.name}, code {error.code}): {detail or error.message}")


class ConfigError(ValueError):
    """An invalid configuration: the message names the Kafka config and its valid range."""


def check_range(name: str, value, low=None, high=None, *, kind: type = int):
    """Validate a numeric Kafka config as Kafka's `ConfigDef.Range` does, naming the valid range."""
    valid = range_text(low, high)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)):
        raise ConfigError(f"Invalid value {value!r} for configuration {name}: expected {kind.__name__} "
                          f"(valid range: {valid})")
    if low is not None and value < low:
        raise ConfigError(f"Invalid value {value} for configuration {name}: Value must be at least {low} "
                          f"(valid range: {valid})")
    if high is not None and value > high:
        raise ConfigError(f"Invalid value {value} for configuration {name}: Value must be no more than {high} "
                          f"(valid range: {valid})")
    return kind(value)


def check_int(name: str, value, low: int) -> int:
    """Validate a kafkasim input that is not a Kafka config (a time in ms, a count): an int >= low."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def range_text(low, high) -> str:
    """The valid range our errors add after Kafka's own words: "[1, +inf]" (Kafka's docs table writes
    `ConfigDef.Range.toString`, "[1,...]"; its ConfigException names one bound only)."""
    return f"[{'-inf' if low is None else low}, {'+inf' if high is None else high}]"


def unknown_name(kind: str, name: str, known) -> ConfigError:
    """A ConfigError for an unknown config name, with a 'did you mean' for near misses."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ConfigError(f"Unknown {kind} config {name!r}{hint}")
