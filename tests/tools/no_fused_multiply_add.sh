#!/usr/bin/env bash
# no_fused_multiply_add.sh FILE...: fails if the machine code of FILE (the engine's
# library and binaries) holds a fused multiply-add. The build turns contraction off
# (-ffp-contract=off) so that a point's result is the same bits on every CPU, with and
# without FMA; GCC 12's vectoriser still fused a*b - c, a*b + c pairs into FMADDSUB in
# two places (stop_cod_flow, chatter_cone's map_velocity), which changed results by an
# ulp between builds. This catches the next one. x86-64 only (skipped elsewhere).
set -euo pipefail
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: not x86-64"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }
status=0
for file in "$@"; do
    # FMA3 (vfmadd132pd, vfmaddsub231pd, vfnmsub213sd, ...) and FMA4 (vfmaddpd, ...)
    found=$(objdump -d --no-show-raw-insn "$file" |
        awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 } $2 ~ /^vf(n)?m(add|sub)/ { print fn, $2 }' |
        sort | uniq -c)
    if [ -n "$found" ]; then
        echo "FAIL: fused multiply-adds in $file:" >&2
        echo "$found" >&2
        status=1
    fi
done
[ "$status" -ne 0 ] || echo "no fused multiply-add in $*"
exit "$status"
