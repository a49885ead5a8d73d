"""How a dataset is cut into shards, and where a running shard is split: ranges of whole
generation blocks, so that any number of workers writes exactly the bytes of one process
(engine.BLOCK_SIZE, DESIGN §9). The engine's plan module is imported when first needed: the API
process cuts datasets into shards but generates none, so it does not load the engine at start-up."""

from __future__ import annotations


def shard_ranges(
    record_count: int, shard_records: int, max_shards: int, *, idle: int = 0, split_records: int = 0
) -> list[tuple[int, int]]:
    """[(start, stop)] covering [0, record_count): shards of at most about `shard_records` records
    (rounded up to whole blocks) and, when `idle` workers would otherwise wait, at least that many
    shards of at least `split_records` each; at most `max_shards`; one empty range for an empty
    dataset."""
    from app.generation.plan import BLOCK_SIZE, block_ranges

    blocks = -(-record_count // BLOCK_SIZE)
    if blocks == 0:
        return [(0, 0)]
    per_shard = max(1, -(-shard_records // BLOCK_SIZE))
    shards = -(-blocks // per_shard)
    if idle > shards and split_records > 0:
        shards = max(shards, min(idle, record_count // split_records))
    return block_ranges(record_count, min(max_shards, shards))


def split_point(position: int, stop: int, split_records: int) -> int | None:
    """Where a shard that has written up to `position` hands the rest of [position, stop) away:
    the block edge nearest the middle of what is left, or None when either part would be smaller
    than `split_records` (or than a block)."""
    from app.generation.plan import BLOCK_SIZE

    mid = position + (stop - position) // 2
    mid = -(-mid // BLOCK_SIZE) * BLOCK_SIZE
    if mid - position < max(split_records, 1) or stop - mid < max(split_records, 1) or mid >= stop:
        return None
    return mid


def block_edge(position: int) -> int:
    """The first block edge at or after `position`: where a running shard may close its parts
    (a checkpoint) and a successor resume, writing the bytes of one uninterrupted run."""
    from app.generation.plan import BLOCK_SIZE

    return -(-position // BLOCK_SIZE) * BLOCK_SIZE
