"""An independent client of bloomkit's Redis layout (docs/FORMAT.md, "A filter in Redis"), written
from that document alone: plain Redis commands (python3-redis) and XXH3 (python3-xxhash), no
bloomkit code. The tests use it against filters the C++ command made, both ways, to show that
the document is enough for another language. Text keys (str as UTF-8, bytes), block filters."""
import xxhash

MASK32, MASK64 = (1 << 32) - 1, (1 << 64) - 1
MULTIPLIER = 0x9E3779B9  # each probe: the top 9 bits of x * MULTIPLIER**(i+1) mod 2**32
HEADER_BITS = 1024  # a shard's 128-byte header comes before its blocks


class StaleFilter(Exception):
    """A shard holds another generation (0: it is gone): the filter was dropped or replaced."""


def parse_meta(text):
    fields = dict(line.split(" ", 1) for line in text.decode().splitlines())
    if fields["bloomkit-redis"] != "2" or fields["kind"] != "block" or fields["state"] != "ready":
        raise ValueError(f"not a ready format-2 block filter: {fields}")
    if fields["hash"] not in ("xxh3-64-mum", "xxh3-mum", "xxh3-mix", "xxh3-128"):
        raise ValueError(f"hash {fields['hash']}: this client speaks XXH3 byte keys only")
    if fields["keys"] not in ("text", "unrecorded"):
        raise ValueError(f"keys are {fields['keys']}: this client adds text keys only")
    generation = int(fields["generation"], 16)
    return {
        "xxh3_64": fields["hash"] == "xxh3-64-mum",
        "bits": int(fields["bits"]), "hashes": int(fields["hashes"]), "seed": int(fields["seed"]),
        "blocks_per_shard": int(fields["blocks_per_shard"]),
        "generation": generation - (1 << 64) if generation >= 1 << 63 else generation,  # as GET i64 reads it
    }


def fmix64(x):
    """MurmurHash3's 64-bit finaliser."""
    x = ((x ^ (x >> 33)) * 0xFF51AFD7ED558CCD) & MASK64
    x = ((x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53) & MASK64
    return x ^ (x >> 33)


def digest(meta, data):
    """(low, high): XXH3-64 with the filter's seed and its fmix64 under xxh3-64-mum, else the
    halves of XXH3-128."""
    if meta["xxh3_64"]:
        low = xxhash.xxh3_64_intdigest(data, seed=meta["seed"])
        return low, fmix64(low)
    both = xxhash.xxh3_128_intdigest(data, seed=meta["seed"])
    return both & MASK64, both >> 64


def positions(meta, key):
    """(shard, [Redis bit offsets]) of a key: its digest (low, high) at the filter's seed;
    block B = high * blocks >> 64; bit j of the block is Redis bit 1024 + (B mod bps)*512 + (j ^ 7)
    of shard B // bps (Redis numbers bits from the top of each byte)."""
    data = key.encode() if isinstance(key, str) else bytes(key)
    low, high = digest(meta, data)
    block = (high * (meta["bits"] // 512)) >> 64
    x = low & MASK32
    bits = [((x * pow(MULTIPLIER, i + 1, 1 << 32)) & MASK32) >> 23 for i in range(meta["hashes"])]
    shard, within = divmod(block, meta["blocks_per_shard"])
    return shard, [HEADER_BITS + within * 512 + (j ^ 7) for j in bits]


class ReferenceClient:
    def __init__(self, redis_client, name):
        self.redis, self.name = redis_client, name
        self.meta = parse_meta(redis_client.get(f"{name}:meta"))

    def _bitfield(self, command, key, operations):
        shard, offsets = positions(self.meta, key)
        arguments = [command, f"{self.name}:{shard}", "GET", "i64", 960]
        for offset in offsets:
            arguments += operations(offset)
        reply = self.redis.execute_command(*arguments)
        if reply[0] != self.meta["generation"]:
            raise StaleFilter(f"{self.name}:{shard} holds generation {reply[0]}")
        return reply[1:]

    def add(self, key):
        self._bitfield("BITFIELD", key, lambda offset: ["SET", "u1", offset, 1])

    def __contains__(self, key):
        return all(self._bitfield("BITFIELD_RO", key, lambda offset: ["GET", "u1", offset]))
