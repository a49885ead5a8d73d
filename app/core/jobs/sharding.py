"""How a dataset is cut into shards: ranges of whole generation blocks, so that any number of
workers writes exactly the bytes of one process (engine.BLOCK_SIZE, DESIGN §9)."""

from __future__ import annotations

from app.generation.engine import BLOCK_SIZE


def shard_ranges(record_count: int, shard_records: int, max_shards: int) -> list[tuple[int, int]]:
    """[(start, stop)] covering [0, record_count): about `shard_records` records each (rounded up
    to whole blocks), at most `max_shards` of them; one empty range for an empty dataset."""
    blocks = -(-record_count // BLOCK_SIZE)
    if blocks == 0:
        return [(0, 0)]
    per_shard = max(1, -(-shard_records // BLOCK_SIZE))
    shards = min(max_shards, -(-blocks // per_shard))
    per = -(-blocks // shards)
    return [(s * per * BLOCK_SIZE, min((s + 1) * per * BLOCK_SIZE, record_count))
            for s in range(shards) if s * per < blocks]
