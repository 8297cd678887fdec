# tests/cli/full_disk.sh — a full disk under a sparse filter: `add` fails before it writes (a
# clear error naming the file, the file byte for byte as it was), and readers still read it.
#
# Needs a small file system of its own: a 4 MiB tmpfs, mounted when the tests run as root (as
# CI does); skipped otherwise. tmpfs is the hard case: it allocates a page even to *read* a hole
# through a memory map, so a sparse filter there fails readers too unless they read() it.
source "$(dirname "$0")/lib.sh" "$@"

DISK=$T/disk
mkdir -p "$DISK"
if [[ $(id -u) -ne 0 ]] || ! mount -t tmpfs -o size=4M tmpfs "$DISK" 2>/dev/null; then
    echo "ok - full_disk: skipped (needs root to mount a small tmpfs)"
    finish
fi
trap 'umount "$DISK" 2>/dev/null; rm -rf "$T"' EXIT

# A filter of a few keys is mostly zeros: copied sparse, it is mostly holes.
seq 1 10 | "$B" build -n 1M -o "$T/dense.bkf" 2>/dev/null
cp --sparse=always "$T/dense.bkf" "$DISK/sparse.bkf"
dd if=/dev/zero of="$DISK/fill" bs=64k status=none 2>/dev/null  # fills the disk

# full_disk_add_fails_cleanly_and_changes_nothing
run "$B" add "$DISK/sparse.bkf" < <(seq 100 5000)
check_rc "full_disk_add_fails_cleanly: exit 2" 2
check_in "full_disk_add_fails_cleanly: the error names the file and the cause" "$ERR" "sparse.bkf"
check_in "full_disk_add_fails_cleanly: ... no space left" "$ERR" "No space left on device"
check_in "full_disk_add_fails_cleanly: ... and says the file was not changed" "$ERR" "was not changed"
check_same "full_disk_add_fails_cleanly: the file is byte for byte as it was" "$T/dense.bkf" "$DISK/sparse.bkf"

# full_disk_readers_still_read_a_sparse_filter
run "$B" check "$DISK/sparse.bkf" < <(seq 1 10)
check_rc "full_disk_readers_still_read: check finds the keys" 0
check_eq "full_disk_readers_still_read: every key" 10 "$(lines_of "$OUT")"
run "$B" info --verify "$DISK/sparse.bkf"
check_rc "full_disk_readers_still_read: info --verify" 0

# With room again, the add lands.
rm -f "$DISK/fill"
run "$B" add "$DISK/sparse.bkf" < <(seq 100 5000)
check_rc "full_disk_then_room: the add lands" 0
run "$B" check --count "$DISK/sparse.bkf" < <(seq 1 10; seq 100 5000)
check_eq "full_disk_then_room: every key is found" 0 "$(count_of "$OUT" absent)"

finish
