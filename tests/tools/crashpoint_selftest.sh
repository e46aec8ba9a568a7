#!/usr/bin/env bash
# crashpoint_selftest.sh: checks the crashpoint shim (crashpoint.c) on small commands
# whose file calls are known: counting, killing before event k, one counter shared by
# several processes, torn writes, and that other files are neither counted nor touched.
#
#   CRASHPOINT_LIB=build/tests/libcrashpoint.so bash tests/tools/crashpoint_selftest.sh
#
# (ctest: tools.crashpoint). Exit status 0 when every check passes, 1 otherwise.
#
# The commands are chosen for how they reach the kernel: bash's redirections call open,
# dd and cat (reading a pipe) call write, mv renameat2, rm unlinkat, truncate ftruncate,
# ln linkat. Shell builtins (printf, echo) and tr write through stdio, and cp and cat
# reading a regular file copy with copy_file_range, none of which the shim sees
# (crashpoint.c explains why), so they only prepare input here. /usr/bin/python3 drives
# the remaining entry points (pwrite, writev, pwritev, posix_fallocate, the *at calls)
# and checks errno, when it exists.
set -euo pipefail

LIB=${CRASHPOINT_LIB:-${1:-}}
if [[ -z $LIB || ! -f $LIB ]]; then
    echo "usage: CRASHPOINT_LIB=path/to/libcrashpoint.so $0" >&2
    exit 1
fi
LIB=$(realpath "$LIB")
PYTHON=/usr/bin/python3

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=$T/out.h5 # the watched family: out.h5, out.h5.partial, ...
CTR=$T/counter
LOG=$T/events

failures=0
pass() { echo "  ok: $*"; }
fail() {
    echo "  FAILED: $*"
    failures=$((failures + 1))
}
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

# A fresh counter (8 zero bytes) and log, and no files of the family.
fresh() {
    rm -f "$P" "$P".* "$LOG" "$T"/other*
    head -c 8 /dev/zero >"$CTR"
}
# Runs a command under the shim; extra CRASHPOINT_* settings come from the environment.
shim() {
    CRASHPOINT_MATCH=$P CRASHPOINT_COUNTER=$CTR CRASHPOINT_LOG=$LOG LD_PRELOAD=$LIB "$@"
}
# The exit status of a command, without set -e stopping the script.
status() {
    local rc=0
    "$@" || rc=$?
    echo "$rc"
}
counter() { od -An -tu8 "$CTR" | tr -d ' '; }
kinds() { if [[ -f $LOG ]]; then sort -n "$LOG" | awk '{print $3}' | paste -sd' '; fi; }
size() { stat -c %s "$1"; }
logged() { grep -q -- "$1" "$LOG"; }

head -c 1000 /dev/zero | tr '\0' x >"$T/src1000"
printf abc >"$T/src3"
# Input through a pipe: cat copies a regular file with copy_file_range, a pipe with write.
# (A reader killed early may give the feeding cat a SIGPIPE: not a failure here.)
feed() { cat "$T/$1" || true; }

echo "crashpoint self-test ($LIB)"

echo "1. count only: the events of a known sequence"
fresh
feed src3 | shim bash -c 'cat > "$1"' _ "$P" # open_creat (bash), write (cat)
shim mv "$P" "$P.partial"                       # rename
shim rm "$P.partial"                            # unlink
check "kinds are 'open_creat write rename unlink' (got '$(kinds)')" \
    test "$(kinds)" = "open_creat write rename unlink"
check "counter is 4 (got $(counter))" test "$(counter)" = 4
check "the write is logged as 3 bytes, offset -1" \
    logged "^2 [0-9]* write $P 3 -1\$"
check "the rename is logged as from->to" logged "^3 [0-9]* rename $P->$P.partial 0 -1\$"
fresh
shim dd if=/dev/zero of="$P" bs=100 count=2 status=none # open_creat, write, write
shim truncate -s 10 "$P"                                 # ftruncate
shim ln "$P" "$P.lock"                                   # link
(cd "$T" && shim rm out.h5.lock)                         # unlink, a relative path
printf abc >"$P.stdio"                                   # not under the shim at all
shim bash -c 'printf abc >> "$1"' _ "$P.stdio"           # O_CREAT on an existing file
check "kinds are 'open_creat write write ftruncate link unlink' (got '$(kinds)')" \
    test "$(kinds)" = "open_creat write write ftruncate link unlink"
check "ftruncate logs the new length" logged " ftruncate $P 10 -1\$"
check "a relative path is made absolute" logged " unlink $P.lock 0 -1\$"

echo "2. CRASHPOINT_AT=k kills before event k (the same four events, one process each)"
for k in 1 2 3 4 5; do
    fresh
    export CRASHPOINT_AT=$k
    s1=$(feed src3 | status shim bash -c 'cat > "$1"' _ "$P" 2>/dev/null)
    s2=$( ((k > 2)) && status shim mv "$P" "$P.partial" || echo -)
    s3=$( ((k > 3)) && status shim rm "$P.partial" || echo -)
    unset CRASHPOINT_AT
    case $k in
    1) check "k=1: bash dies by SIGKILL, $P never created" \
        test "$s1" = 137 -a ! -e "$P" ;;
    2) check "k=2: cat dies by SIGKILL, $P created but empty" \
        test "$s1" = 137 -a -e "$P" -a "$(size "$P")" = 0 ;;
    3) check "k=3: mv dies by SIGKILL after the write, $P not renamed" \
        test "$s1" = 0 -a "$s2" = 137 -a "$(cat "$P")" = abc -a ! -e "$P.partial" ;;
    4) check "k=4: rm dies by SIGKILL after the rename, $P.partial not removed" \
        test "$s2" = 0 -a "$s3" = 137 -a "$(cat "$P.partial")" = abc -a ! -e "$P" ;;
    5) check "k=5 (past the end): nothing dies, the sequence completes" \
        test "$s1$s2$s3" = 000 -a ! -e "$P" -a ! -e "$P.partial" ;;
    esac
    if ((k <= 4)); then
        check "k=$k: counter is $k, the log's last line is event $k, marked killed" \
            test "$(counter)" = "$k" -a "$(tail -n 1 "$LOG" | awk '{print $1, $NF}')" = "$k killed"
    fi
done
fresh
err=$(CRASHPOINT_AT=1 CRASHPOINT_VERBOSE=1 shim dd if="$T/src3" of="$P" status=none 2>&1 || true)
check "CRASHPOINT_VERBOSE=1 says which event it killed (got '$err')" \
    grep -q "^crashpoint: killing pid [0-9]* before event 1 (open_creat $P)\$" <<<"$err"
fresh
err=$(CRASHPOINT_AT=1 shim dd if="$T/src3" of="$P" status=none 2>&1 || true)
check "otherwise the shim prints nothing (got '$err')" test -z "$err"

echo "3. one counter shared by several processes"
fresh
shim dd if="$T/src3" of="$P" status=none
shim dd if="$T/src3" of="$P.b" status=none
check "two processes number events 1..4 (got '$(cut -d' ' -f1 "$LOG" | paste -sd' ')')" \
    test "$(cut -d' ' -f1 "$LOG" | paste -sd' ')" = "1 2 3 4"
check "with two pids" test "$(cut -d' ' -f2 "$LOG" | sort -u | wc -l)" = 2
fresh
for i in 1 2 3 4; do # concurrently: 4 x (open_creat + 200 one-byte writes)
    shim dd if="$T/src1000" of="$P.$i" bs=1 count=200 status=none &
done
wait
check "4 concurrent processes: counter is 804 (got $(counter))" test "$(counter)" = 804
check "every number 1..804 logged exactly once" \
    test "$(cut -d' ' -f1 "$LOG" | sort -n | paste -sd' ')" = "$(seq -s' ' 1 804)"

echo "4. torn mode"
fresh
s=$(feed src1000 | CRASHPOINT_AT=2 CRASHPOINT_MODE=torn status shim bash -c 'cat > "$1"' _ "$P" \
    2>/dev/null)
check "a 1000-byte write torn: SIGKILL, the file holds its first 500 bytes" \
    test "$s" = 137 -a "$(size "$P")" = 500 -a "$(tr -d x <"$P" | wc -c)" = 0
check "the log marks it torn" logged "^2 [0-9]* write $P 1000 -1 torn\$"
fresh
printf y >"$T/src1"
s=$(CRASHPOINT_AT=2 CRASHPOINT_MODE=torn status shim dd if="$T/src1" of="$P" status=none)
check "a 1-byte write torn writes nothing" test "$s" = 137 -a "$(size "$P")" = 0
fresh
shim dd if="$T/src3" of="$P" status=none
s=$(CRASHPOINT_AT=3 CRASHPOINT_MODE=torn status shim mv "$P" "$P.partial")
check "a rename in torn mode is killed before, as in 'before'" \
    test "$s" = 137 -a -e "$P" -a ! -e "$P.partial"

echo "5. other files are neither counted nor touched"
fresh
s=$(CRASHPOINT_AT=1 status shim bash -c 'dd if="$1" of="$2/other" status=none
    mv "$2/other" "$2/other2"; dd if="$1" of="$2/out.h" status=none; ln "$2/other2" "$2/other3"
    rm "$2/other2" "$2/out.h"' _ "$T/src1000" "$T")
check "AT=1 over unrelated files (and out.h, a prefix of the prefix): nothing killed" \
    test "$s" = 0 -a "$(size "$T/other3")" = 1000 -a ! -e "$T/out.h"
check "nothing counted or logged" test "$(counter)" = 0 -a ! -e "$LOG"
mkfifo "$P.fifo"
feed src3 | shim bash -c 'cat > "$1"' _ "$P.fifo" &
cat "$P.fifo" >/dev/null
wait
check "a FIFO of the family: no write event" test "$(kinds)" = ""
fresh
CRASHPOINT_LOG=$P.log CRASHPOINT_COUNTER=$P.counter CRASHPOINT_MATCH=$P LD_PRELOAD=$LIB \
    dd if="$T/src3" of="$P" status=none
check "the log and counter never count, even inside the family" \
    test "$(wc -l <"$P.log")" = 2 -a "$(od -An -tu8 "$P.counter" | tr -d ' ')" = 2
s=$(CRASHPOINT_AT=1 CRASHPOINT_COUNTER=$CTR CRASHPOINT_LOG=$LOG LD_PRELOAD=$LIB \
    status dd if="$T/src3" of="$P.unset" status=none)
check "CRASHPOINT_MATCH unset: nothing counted, nothing killed" \
    test "$s" = 0 -a "$(counter)" = 0 -a "$(size "$P.unset")" = 3

echo "6. the other entry points, errno, torn vectors (python3)"
if [[ -x $PYTHON ]]; then
    cat >"$T/calls.py" <<'EOF'
import errno, os, sys
d = sys.argv[1]
P = d + "/out.h5"
fd = os.open(P, os.O_WRONLY | os.O_CREAT, 0o644)            # open_creat
os.write(fd, b"")                                            # write, 0 bytes
os.pwrite(fd, b"0123456789", 100)                            # pwrite
os.writev(fd, [b"ab", b"cdef"])                              # writev
os.pwritev(fd, [b"ab", b"cd"], 200)                          # pwritev
os.ftruncate(fd, 300)                                        # ftruncate
os.posix_fallocate(fd, 0, 4096)                              # fallocate
os.close(fd)
dfd = os.open(d, os.O_RDONLY)
os.rename("out.h5", "out.h5.tmp", src_dir_fd=dfd, dst_dir_fd=dfd)  # rename (renameat)
os.link(P + ".tmp", P + ".lnk")                              # link
os.unlink("out.h5.lnk", dir_fd=dfd)                          # unlink (unlinkat)
os.close(os.open("out.h5.new", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600,
                 dir_fd=dfd))                                # open_creat (openat)
def fails(code, call, *args):
    try:
        call(*args)
    except OSError as e:
        assert e.errno == code, (call, e)
        return
    raise AssertionError(call)
fails(errno.EEXIST, os.open, P + ".new", os.O_WRONLY | os.O_CREAT | os.O_EXCL)  # no event
fails(errno.EBADF, os.write, 1000, b"x")                     # not a file: no event
fails(errno.ENOENT, os.rename, P + ".missing", P + ".x")     # rename, fails: counted
assert os.stat(P + ".new").st_mode & 0o777 == 0o600         # the mode reached open
EOF
    fresh
    check "every entry point behaves as without the shim (errno, modes)" \
        shim "$PYTHON" "$T/calls.py" "$T"
    want="open_creat write pwrite writev pwritev ftruncate fallocate rename link unlink"
    want+=" open_creat rename"
    check "their events are '$want' (got '$(kinds)')" test "$(kinds)" = "$want"
    check "pwrite logs bytes and offset" logged " pwrite $P 10 100\$"
    check "posix_fallocate logs length and offset" logged " fallocate $P 4096 0\$"
    check "a zero-byte write counts" logged "^2 [0-9]* write $P 0 -1\$"
    check "renameat paths are taken relative to the dirfd" \
        logged " rename $P->$P.tmp 0 -1\$"
    cat >"$T/torn.py" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
if sys.argv[2] == "pwrite":
    os.pwrite(fd, b"0123456789", 100)
else:
    os.pwritev(fd, [b"ab", b"cd", b"efghij"], 100)
EOF
    for call in pwrite pwritev; do
        fresh
        s=$(CRASHPOINT_AT=2 CRASHPOINT_MODE=torn status shim "$PYTHON" "$T/torn.py" "$P" $call)
        want=$([[ $call = pwrite ]] && echo 01234 || echo abcde)
        check "a torn $call of 10 bytes at offset 100 writes only '$want' there" \
            test "$s" = 137 -a "$(size "$P")" = 105 -a "$(tail -c 5 "$P")" = "$want"
    done
else
    echo "  skipped: no $PYTHON"
fi

if ((failures > 0)); then
    echo "crashpoint self-test: $failures check(s) FAILED"
    exit 1
fi
echo "crashpoint self-test: all checks passed"
