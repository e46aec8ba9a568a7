# test_hybrid_trace.sh: the trace that a plug-in on <impactsweep/hybrid.h> gets without
# code of its own (IS_HYBRID_PLUGIN), and `models --check`'s trace check:
#  - the minimal model of docs/writing-a-model.md (examples/minimal), built with the
#    guide's own compile line from the guide's own text, passes `models --check`; its trace
#    has the bounce times and the rest time of the closed form (t_1 = sqrt(2h/g), each
#    flight 2 v_k / g with v_k = e^k sqrt(2gh), rest at t_1 (1 + e) / (1 - e)), the ball at
#    height 0 at every impact, v -> -e v across it, samples in time order;
#  - the bouncing ball (examples/bouncing_ball): every impact event at the table (x = Gamma
#    sin t), the restitution law v+ - w = -r (v- - w) between the samples around it, the
#    impact events as many as the output `impacts`, the last sample the run's end;
#  - forced-stop (examples/forced_stop): a trace with contact events, at the stop;
#  - `models --check` refuses (exit 2, naming the problem) a trace whose time runs
#    backwards, one with a NaN, one whose outputs differ from eval_batch's, one that fails.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
[ -n "${PLUGIN_DIR:-}" ] || die "PLUGIN_DIR is not set (run the test through ctest)"
HYBRID=$PLUGIN_DIR/hybrid
DOC=$TESTS/../docs/writing-a-model.md

say "the guide's minimal model, built with the guide's compile line"
[ -f "$DOC" ] || die "docs/writing-a-model.md is missing"
line=$(grep -E '^    cc .*minimal\.c' "$DOC" | head -n 1 | sed 's/^    //')
[ -n "$line" ] || die "the guide shows no compile line for minimal.c"
case $line in *-ffp-contract=off*) ;; *) die "the guide's compile line lacks -ffp-contract=off: $line" ;; esac
mkdir -p guide/examples/minimal guide/include
cp "$TESTS/../examples/minimal/minimal.c" guide/examples/minimal/
cp -r "$PLUGIN_DIR/../plugin-include/impactsweep" guide/include/
# the guide's line, with the installed prefix's include folder as the guide's $PREFIX
(cd guide && PREFIX=$PWD && eval "${line//\$PREFIX/$PREFIX}") >out.txt 2>err.txt ||
    die "the guide's compile line fails: $line"
[ -f guide/minimal.so ] || die "the guide's compile line made no minimal.so"
cmp -s <(sed -n '/^```c$/,/^```$/p' "$DOC" | sed '1d;$d') "$TESTS/../examples/minimal/minimal.c" ||
    die "the guide's listing of minimal.c differs from examples/minimal/minimal.c"

# every command the guide shows (indented lines as test_readme.sh reads them) is run here
"$PYTHON" - "$DOC" >doc_commands.txt <<'EOF'
import re, sys
command = re.compile(r"^    (impactsweep |mpirun |slurm/submit|scripts/[a-z-]+\.sh|cmake |cc |"
                     r"/usr/bin/python3 |[A-Z_]+=|\$)")
for line in open(sys.argv[1]).read().split("\n"):
    if command.match(line):
        print(" ".join(re.sub(r"\s+#.*$", "", line).split()))
EOF
printf '%s\n' "impactsweep eval minimal-ball h=2 e=0.6" "impactsweep models --check minimal-ball" \
    "impactsweep trace minimal-ball h=2 e=0.6 --output minimal.h5" >mirrored.txt
grep -v '^cc .*minimal\.c' doc_commands.txt | LC_ALL=C sort -u | cmp -s - mirrored.txt ||
    die "the guide's commands are not the ones this test runs: $(cat doc_commands.txt)"

export IMPACTSWEEP_MODEL_PATH=$PWD/guide/minimal.so
expect_status 0 "eval minimal-ball" "$IMPACTSWEEP" eval minimal-ball h=2 e=0.6
shown=$(grep -o '`"t_rest": [^`]*`' "$DOC" | head -n 1 | tr -d '`')
grep -qF "$shown" out.txt || die "eval does not print what the guide shows ($shown): $(cat out.txt)"
expect_status 0 "models --check minimal-ball" "$IMPACTSWEEP" models --check minimal-ball
grep -q "its trace of the defaults ([0-9]* samples, [0-9]* events) in time order, finite, with eval_batch's outputs" out.txt ||
    die "models --check does not report the trace: $(cat out.txt)"
expect_status 0 "trace minimal-ball" "$IMPACTSWEEP" trace minimal-ball h=2 e=0.6 --output minimal.h5
"$PYTHON" - minimal.h5 <<'EOF' || die "the minimal model's trace is wrong"
import math, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
kinds = f["event_kind"].attrs["flag_meanings"]
kinds = (kinds.decode() if isinstance(kinds, bytes) else kinds).split()
assert kinds == ["impact", "accumulation"], kinds
t, x, v = f["t"][:], f["x"][:], f["v"][:]
assert np.all(np.diff(t) >= 0), "samples out of time order"
assert f["x"].attrs["units"] in (b"m", "m"), f["x"].attrs["units"]
et, ek, ex, ev = f["event_t"][:], f["event_kind"][:], f["event_x"][:], f["event_v"][:]
impacts = et[ek == 0]
g, h, e = 9.81, 2.0, 0.6
t1, v0 = math.sqrt(2 * h / g), math.sqrt(2 * g * h)
exact = [t1]
for k in range(1, 12):
    exact.append(exact[-1] + 2 * e ** k * v0 / g)
for k in range(12):
    assert abs(impacts[k] - exact[k]) < 1e-8 * exact[k], (k, impacts[k], exact[k])
assert np.all(np.abs(ex[ek == 0]) < 1e-9), "an impact away from the floor"
# v -> -e v: the sample after each impact event holds the reset speed
for k, tk in enumerate(impacts[:12]):
    at = np.nonzero(t == tk)[0]
    assert len(at) >= 2, ("no samples before and after the impact", tk)
    vin, vout = v[at[0]], v[at[-1]]
    assert abs(vout + e * vin) < 1e-12 * abs(vin), (k, vin, vout)
    assert abs(vin + e ** k * v0) < 1e-8 * v0, (k, vin)
rest = t1 * (1 + e) / (1 - e)
assert (ek == 1).sum() == 1 and abs(et[ek == 1][0] - rest) < 1e-8 * rest, (et[ek == 1], rest)
assert abs(t[-1] - f.attrs["output_t_rest"]) == 0 and x[-1] == 0 and v[-1] == 0
assert int(f.attrs["output_impacts"]) == len(impacts), (f.attrs["output_impacts"], len(impacts))
print("minimal:", len(t), "samples,", len(impacts), "impacts, rest at", et[ek == 1][0])
EOF
say "the trace option dt thins the steps' samples, never the events'"
expect_status 0 "trace minimal-ball dt=0.2" "$IMPACTSWEEP" trace minimal-ball h=2 e=0.6 dt=0.2 --output thin.h5
"$PYTHON" - minimal.h5 thin.h5 <<'EOF' || die "dt changed the events or did not thin the samples"
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:])
assert np.array_equal(a["event_t"][:], b["event_t"][:]), "the events differ"
assert len(b["t"]) < len(a["t"]), (len(b["t"]), len(a["t"]))
assert b["t"][-1] == a["t"][-1]
EOF

say "the bouncing ball's trace: impacts at the table, restitution across them"
export IMPACTSWEEP_MODEL_PATH=$HYBRID
expect_status 0 "models --check bouncing-ball" "$IMPACTSWEEP" models --check bouncing-ball
grep -q "its trace of the defaults" out.txt || die "models --check does not report the trace"
run_status "$IMPACTSWEEP" trace bouncing-ball Gamma=1.2 r=0.5 periods=16 --output ball.h5 >/dev/null
[ -f ball.h5 ] || die "trace bouncing-ball wrote no file: $(cat err.txt)"
"$PYTHON" - ball.h5 <<'EOF' || die "the bouncing ball's trace is wrong"
import math, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
kinds = f["event_kind"].attrs["flag_meanings"]
kinds = (kinds.decode() if isinstance(kinds, bytes) else kinds).split()
assert kinds == ["impact", "release", "accumulation"], kinds
G, r = 1.2, 0.5
t, x, v = f["t"][:], f["x"][:], f["v"][:]
assert np.all(np.diff(t) >= 0)
et, ek, ex = f["event_t"][:], f["event_kind"][:], f["event_x"][:]
imp = ek == 0
assert imp.sum() > 5, imp.sum()
assert np.all(np.abs(ex[imp] - G * np.sin(et[imp])) < 1e-9), "an impact away from the table"
checked = 0
for tk in et[imp]:
    at = np.nonzero(t == tk)[0]
    assert len(at) >= 2, tk
    w = G * math.cos(tk)
    vin, vout = v[at[0]], v[at[1]]
    assert abs((vout - w) + r * (vin - w)) < 1e-9 * (1 + abs(vin)), (tk, vin, vout, w)
    checked += 1
assert imp.sum() == int(f.attrs["output_impacts"]), (imp.sum(), f.attrs["output_impacts"])
assert abs(t[-1] - 16 * 2 * math.pi) < 1e-9, t[-1]
print("ball:", len(t), "samples,", checked, "impacts checked")
EOF

say "forced-stop's trace: contacts at the stop"
expect_status 0 "models --check forced-stop" "$IMPACTSWEEP" models --check forced-stop
run_status "$IMPACTSWEEP" trace forced-stop omega=2 A=1 delta=0.2 r=0.8 --output stop.h5 >/dev/null
[ -f stop.h5 ] || die "trace forced-stop wrote no file: $(cat err.txt)"
"$PYTHON" - stop.h5 <<'EOF' || die "forced-stop's trace is wrong"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
kinds = f["event_kind"].attrs["flag_meanings"]
kinds = (kinds.decode() if isinstance(kinds, bytes) else kinds).split()
assert kinds[:2] == ["contact", "release"], kinds
ek, ex = f["event_kind"][:], f["event_x"][:]
assert (ek == 0).sum() > 0
assert np.all(np.abs(ex[ek == 0] - 0.2) < 1e-8), ex[ek == 0]
assert np.all(np.diff(f["t"][:]) >= 0)
EOF

say "models --check refuses a broken trace, naming the problem"
for kind in 1 2 3 4; do
    export IMPACTSWEEP_MODEL_PATH=$PLUGIN_DIR/bad_trace/libbad_trace_$kind.so
    expect_status 2 "models --check bad-trace-$kind" "$IMPACTSWEEP" models --check bad-trace-$kind
    case $kind in
    1) want="time runs backwards" ;;
    2) want="has channel y = nan (finite before)" ;;
    3) want="its trace's output y_end is" ;;
    4) want="its trace failed: the trace gave up" ;;
    esac
    grep -q "$want" err.txt || die "models --check bad-trace-$kind does not say '$want': $(cat err.txt)"
done
