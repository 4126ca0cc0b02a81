"""The broker's request memory pool (KIP-72): Kafka's ``org.apache.kafka.common.memory``.

`SimpleMemoryPool` follows ``clients/src/main/java/org/apache/kafka/common/memory/SimpleMemoryPool.java``
(KAFKA-4602, Kafka 1.0.0): a counter of available bytes, no real buffers. The SocketServer builds it
non-strict (``new SimpleMemoryPool(queuedMaxBytes, socketRequestMaxBytes, false, sensor)``), so an
allocation succeeds while *any* byte is left and the counter may go below zero by less than one
request: the pool's peak use stays below ``size + max_single_allocation``. `UnboundedPool` is
``MemoryPool.NONE``, used when ``queued.max.request.bytes`` <= 0 (the default, -1): it never refuses,
and reports size and available memory as Long.MAX_VALUE, so Kafka's ``MemoryPoolUsed`` gauge reads 0.
kafkasim still counts the bytes it hands out (`used`, `peak_used`) to show what an unbounded broker holds.

Sizes are plain byte counts: the model allocates and releases numbers, not ByteBuffers.
"""

from __future__ import annotations

from typing import Callable

LONG_MAX = 2**63 - 1


class SimpleMemoryPool:
    """A bound on outstanding request bytes; see the module docstring.

    `clock` (a function returning the current ms) plays the part of the ``MemoryPoolUtilization``
    sensor: with it, the pool measures its dry spells, from the first refused allocation to the
    next successful allocation or release (``maybeRecordEndOfDrySpell``). Their total is Kafka's
    ``MemoryPoolDepletedTimeTotal``.
    """

    def __init__(self, size_bytes: int, max_single_allocation_bytes: int, strict: bool = False,
                 clock: Callable[[], int] | None = None):
        # Kafka's test, `sizeInBytes <= 0 || maxSingleAllocationSize <= 0 || maxSingleAllocationSize > sizeInBytes`,
        # without its first part, which the other two imply. Kafka's message, missing space included.
        if not 0 < max_single_allocation_bytes <= size_bytes:
            raise ValueError("must provide a positive size and max single allocation size smaller than size."
                             f"provided {size_bytes} and {max_single_allocation_bytes} respectively")
        self.size = size_bytes
        self.max_single_allocation = max_single_allocation_bytes
        self.strict = strict
        self.available = size_bytes
        self.peak_used = 0
        self.clock = clock
        self.dry_spell_start: int | None = None
        self.depleted_time_total_ms = 0  # MemoryPoolDepletedTimeTotal
        self.last_dry_spell_ms = 0

    @property
    def used(self) -> int:
        """``MemoryPoolUsed``: size - available (above `size` when the pool has overshot)."""
        return self.size - self.available

    def is_out_of_memory(self) -> bool:
        return self.available <= 0

    def try_allocate(self, size_bytes: int) -> bool:
        """``tryAllocate``: True if the bytes were taken. Non-strict: succeeds while available >= 1."""
        if size_bytes < 1:
            raise ValueError(f"requested size {size_bytes}<=0")
        if size_bytes > self.max_single_allocation:
            raise ValueError(f"requested size {size_bytes} is larger than maxSingleAllocationSize "
                             f"{self.max_single_allocation}")
        if self.available >= (size_bytes if self.strict else 1):
            self.available -= size_bytes
            self.peak_used = max(self.peak_used, self.size - self.available)
            self._end_dry_spell()
            return True
        if self.clock is not None and self.dry_spell_start is None:
            self.dry_spell_start = self.clock()
        return False

    def release(self, size_bytes: int) -> None:
        """``release``: the bytes come back (called once per successful allocation)."""
        self.available += size_bytes
        self._end_dry_spell()

    def _end_dry_spell(self) -> None:
        if self.dry_spell_start is not None:
            self.last_dry_spell_ms = self.clock() - self.dry_spell_start
            self.depleted_time_total_ms += self.last_dry_spell_ms
            self.dry_spell_start = None

    def __repr__(self) -> str:
        return f"SimpleMemoryPool({self.used}/{self.size} bytes used)"


class UnboundedPool:
    """``MemoryPool.NONE``: always allocates, never out of memory; kafkasim counts what it hands out."""

    size = LONG_MAX
    available = LONG_MAX
    depleted_time_total_ms = 0
    dry_spell_start = None

    def __init__(self):
        self.used = 0
        self.peak_used = 0

    def is_out_of_memory(self) -> bool:
        return False

    def try_allocate(self, size_bytes: int) -> bool:
        self.used += size_bytes
        self.peak_used = max(self.peak_used, self.used)
        return True

    def release(self, size_bytes: int) -> None:
        self.used -= size_bytes

    def __repr__(self) -> str:
        return f"UnboundedPool({self.used} bytes used)"
