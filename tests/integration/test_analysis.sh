# shellcheck shell=bash
# test_analysis.sh: analysis/impactplot.py (the command of the package analysis/impactplot/)
# draws the right figures from real result files, in the forms a journal accepts.
# Small result files are made with the engine itself (one process, no mpiexec), the
# figures are rendered with --layout (a JSON file with every panel's pixel box, data
# limits, facet and every text's box next to each PNG), and
# tests/integration/check_figures.py checks:
#  - sizes: the PNG is the figure size times --dpi in pixels: one journal column (3.5 in
#    wide) by default for one panel across, two (7.2 in) for more, --size double, and a
#    free size (7x5 in, 120x80 mm);
#  - fonts: every font of the PDFs is TrueType and embedded (pdffonts: no Type 3), the EPS
#    fonts are Type 42; PNG, PDF, SVG and EPS files are what they say;
#  - a look at each figure kind: on the categorical maps (chatter regime and cone,
#    collision outcome, stop-oscillator regime and Zeno region) the colour at sample cells
#    well inside uniform regions (off contour lines and texts) is the documented colour of
#    the class the data give there, panel by panel (facets, several files);
#  - no two texts of a figure overlap, none stands upside down, contour labels lie inside
#    their panel; no title or footer unless asked (--title, --footer), provenance in the
#    PNG text chunks and the PDF Info dictionary all the same;
#  - level curves (chatter regime and impacts, collision CoR, stop-oscillator Zeno map):
#    exactly one label per level, the labels apart and read in the order of the levels,
#    no curve crossing or touching another or itself (the "X" on the Zeno map);
#  - short labels: colour bars one line of at most 24 characters, never a long_name;
#    units typeset (m s$^{-1}$, the L and T of the stop oscillator's axes), no raw
#    UDUNITS anywhere; every axis and colour bar in one number format (a plug-in's log
#    colours over 1e-5 .. 1e-3 too);
#  - no local path in the metadata of any format unless --source-path asks for it;
#    trace figures without a title unless --title;
#  - the fractions figure: three panels, one labelled colour bar; a one-colour panel (the
#    bwshc outcome map, p_pcc = 0) carries a note; a fourth, p_flat, where drops landed
#    flat (n = 3 along the PCC boundary), whose regime map shows `flat` in its colour;
#  - a refined file: the points a refinement inferred (status 7) drawn in their class on
#    the map of the refined output, as not computed on the others;
#  - a partial chatter file (a run stopped by SIGUSR1) shows its pending points in the
#    "not computed" colour, a collision file with failed points (a small step budget)
#    shows them in the "failed" colour, on categorical and on colour maps;
#  - three axes: panels over the third (said on stderr), --sel n=5 the slice at n = 5;
#    --facet law: a panel per law; n = 3, 4, 5 from three files side by side in one
#    figure, one colour bar;
#  - the e(v0) curves go through their data points;
#  - trace files: no text overlapping or leaving the figure, TrueType fonts;
#  - as a library: importing impactplot leaves matplotlib's backend alone and loads no
#    pyplot, its functions take a Dataset and an Axes and return the artists; the
#    docs/guide.md's `ds.p_cc.plot(x="rho")` puts rho on the x axis;
#  - a non-impactsweep HDF5 file, a text file and a missing file are refused with exit
#    status 2 and a one-line message naming the file, writing nothing;
#  - scripts/figure.sh turns ./example.h5 (its default) into PNG and PDF pictures.
set -euo pipefail

source "$TESTS/integration/lib.sh" # environment check, work directory, cleanup, say, die
ROOT=$(cd "$TESTS/.." && pwd)
TOOL="$ROOT/analysis/impactplot.py"
CHECK="$TESTS/integration/check_figures.py"
run_pid=""

# engine OUTPUT JOB ARGS...: a sweep in one process, failing loudly.
engine() {
    local out=$1 job=$2
    shift 2
    "$IMPACTSWEEP" run "$job" --output "$out" --overwrite --progress lines "$@" \
        >out.txt 2>err.txt || die "impactsweep run $job $* failed"
}

# plot FILE PREFIX DPI ARGS...: impactplot.py with --layout; every file it prints exists.
plot() {
    local file=$1 prefix=$2 dpi=$3 f
    shift 3
    "$PYTHON" "$TOOL" "$file" --output "$prefix" --dpi "$dpi" --layout "$@" >out.txt 2>err.txt ||
        die "impactplot.py $file $* failed"
    while read -r f; do
        [ -s "$f" ] || die "impactplot.py printed $f, which is missing or empty"
    done <out.txt
}

# expect_files PREFIX KIND...: PREFIX_KIND.png and .json were written for each KIND.
expect_files() {
    local prefix=$1 kind
    shift
    for kind in "$@"; do
        grep -qx "${prefix}_$kind.png" out.txt || die "no ${prefix}_$kind.png written"
        grep -qx "${prefix}_$kind.json" out.txt || die "no ${prefix}_$kind.json written"
    done
}

# checks: the check_figures.py commands on stdin (one a line), in one process.
checks() { "$PYTHON" "$CHECK" - || die "the figures are not as expected (PROBLEM lines above)"; }

"$PYTHON" -c "import matplotlib, xarray, h5netcdf, h5py" 2>/dev/null ||
    die "$PYTHON cannot import matplotlib, xarray, h5netcdf and h5py"

command -v pdffonts >/dev/null || die "pdffonts (poppler-utils) is missing: scripts/setup.sh installs it"

say "chatter: regime map with impact-count level curves, impacts, fractions, cone map"
engine chatter.h5 "$JOBS/example.ini" --set axis.rho.count=12 --set axis.gamma.count=12 \
    --set model.samples=20
plot chatter.h5 chatter 100 --format png,pdf,svg,eps
expect_files chatter regime impacts fractions cone
# example.ini sets early_stop = 0: nothing certified, p_undecided is p_cc itself: not made
# by default (said on stderr), drawn with a note when asked for
grep -q "figure undecided not made: early_stop = 0" err.txt ||
    die "the undecided figure of an early_stop = 0 file was made, or not said why not"
! grep -qx chatter_undecided.png out.txt || die "the undecided figure made by default"
# impacts_mean is capped by max_impacts (200) and reaches it: "≥200" atop the colour bar
"$PYTHON" - <<'PY' || die "the capped impacts figure does not say 200 or more"
import json
layout = json.load(open("chatter_impacts.json"))
cap = layout["panels"][0]["cap"]
assert cap and cap["parameter"] == "max_impacts" and cap["value"] == 200, cap
ticks = [t["text"] for t in layout["texts"] if t["role"] == "tick"]
assert "\u2265200" in ticks, ticks
PY
grep -qx chatter_regime.pdf out.txt || die "no chatter_regime.pdf written"
grep -q '"levels": \[' chatter_regime.json || die "the regime map has no impacts_mean level curves"
! grep -q '"text": "Chattering square' chatter_regime.json || die "a title drawn without --title"
say "sizes (one column, two, free), fonts, formats, texts, class colours, provenance"
plot chatter.h5 free 100 --format png,pdf --size 7x5 --field regime --title --footer
grep -q '"text": "Chattering square' free_regime.json || die "--title drew no title"
grep -q '"text": "impactsweep .*job ' free_regime.json || die "--footer drew no footer"
plot chatter.h5 wide 100 --format png --size double --field impacts
plot chatter.h5 mm 100 --format png,pdf --size 120x80mm --field cone --source-path
checks <<'END'
metadata chatter_regime --formats png,pdf,svg,eps
metadata mm_cone --formats png,pdf --expect-path
map chatter_regime chatter.h5 --dpi 100 --inches 3.5 --classes regime --require icc,cc
map chatter_cone chatter.h5 --dpi 100 --inches 3.5 --classes cone --require found,none
map chatter_impacts chatter.h5 --dpi 100 --inches 3.5
map chatter_fractions chatter.h5 --dpi 100 --inches 7.2
map free_regime chatter.h5 --dpi 100 --inches 7x5 --classes regime --require icc,cc
map wide_impacts chatter.h5 --dpi 100 --inches 7.2
map mm_cone chatter.h5 --dpi 100 --inches 4.724409449x3.149606299 --classes cone --require found,none
fonts chatter_regime.pdf chatter_impacts.pdf chatter_fractions.pdf chatter_cone.pdf free_regime.pdf
fonts chatter_regime.eps chatter_impacts.eps chatter_fractions.eps chatter_cone.eps
formats chatter_regime png,pdf,svg,eps
formats chatter_fractions png,pdf,svg,eps
texts chatter_regime
texts chatter_impacts
texts chatter_fractions
texts chatter_cone
texts free_regime
levels chatter_regime
levels chatter_impacts
colourbars chatter_impacts chatter.h5 --max-chars 24
colourbars chatter_fractions chatter.h5 --max-chars 24
units chatter_impacts --colourbar "impacts per drop"
ticks chatter_regime
ticks chatter_impacts
ticks chatter_fractions
ticks chatter_cone
ticks wide_impacts
panels chatter_fractions --count 3 --colourbars 1 --titles ICC,CC,PCC --note '$p_{\mathrm{PCC}}$ = 0 at every' --grid 1x3
panels chatter_impacts --count 1 --colourbars 1 --labelled
panels chatter_regime --count 1 --labelled
meta chatter_regime chatter.h5
meta free_regime chatter.h5
END
plot chatter.h5 chatter 100 --format png --field undecided
checks <<'END'
map chatter_undecided chatter.h5 --dpi 100 --inches 3.5
panels chatter_undecided --count 1 --colourbars 1 --note "early_stop = 0 certifies no drop"
texts chatter_undecided
END

say "chatter flat landings (n = 3 along the PCC boundary): flat in its colour, p_flat a fourth panel"
engine flat.h5 "$JOBS/example.ini" --set model.n=3 --set model.samples=20 \
    --set axis.rho.from=0.672 --set axis.rho.to=0.690 --set axis.rho.count=32 \
    --set axis.gamma.from=0.00017 --set axis.gamma.to=0.00023 --set axis.gamma.count=32
plot flat.h5 flat 100 --format png
expect_files flat regime fractions
checks <<'END'
map flat_regime flat.h5 --dpi 100 --inches 3.5 --classes regime --require pcc,flat
map flat_fractions flat.h5 --dpi 100 --inches 7.2
panels flat_fractions --count 4 --colourbars 1 --titles "ICC,CC,PCC,flat landing" --grid 1x4
texts flat_regime
texts flat_fractions
END

say "three axes (rho, gamma, n): panels over n (said on stderr), --sel n=5 the slice at n = 5"
sed '/^n *=/d' "$JOBS/example.ini" >three_axes.ini
printf '\n[axis.n]\nvalues = 3, 5\n' >>three_axes.ini
engine three.h5 three_axes.ini --set axis.rho.count=10 --set axis.gamma.count=10 \
    --set model.samples=10
plot three.h5 three 80 --format png --field regime,impacts
grep -q "panels over n" err.txt || die "impactplot.py does not say that it draws panels over n"
plot three.h5 three_sel 80 --format png --field regime --sel n=5
checks <<'END'
map three_regime three.h5 --dpi 80 --inches 7.2 --classes regime --require icc,cc
panels three_regime --count 2 --titles "$n$ = 3,$n$ = 5" --grid 1x2
panels three_impacts --count 2 --colourbars 1 --grid 1x2
texts three_regime
levels three_regime
levels three_impacts
map three_sel_regime three.h5 --dpi 80 --inches 3.5 --classes regime --require icc,cc
panels three_sel_regime --count 1 --titles "$n$ = 5"
END

say "several files in one figure: n = 3, 4, 5 side by side, one legend, one colour bar"
for n in 3 4 5; do
    engine "n$n.h5" "$JOBS/example.ini" --set axis.rho.count=10 --set axis.gamma.count=10 \
        --set model.samples=10 --set model.n=$n
done
"$PYTHON" "$TOOL" n3.h5 n4.h5 n5.h5 --output n345 --dpi 80 --layout --format png,pdf \
    --field regime,impacts >out.txt 2>err.txt || die "impactplot.py n3.h5 n4.h5 n5.h5 failed"
expect_files n345 regime impacts
checks <<'END'
map n345_regime n3.h5 --dpi 80 --inches 7.2 --classes regime --require icc,cc
panels n345_regime --count 3 --titles "$n$ = 3,$n$ = 4,$n$ = 5" --grid 1x3
panels n345_impacts --count 3 --colourbars 1 --grid 1x3
texts n345_regime
texts n345_impacts
levels n345_regime
levels n345_impacts
ticks n345_impacts
colourbars n345_impacts n3.h5 --max-chars 24
panels n345_regime --count 3 --labelled
fonts n345_regime.pdf
END

say "a refined file (status 7, inferred): classes on the regime map, not computed elsewhere"
engine refined.h5 "$JOBS/example.ini" --set sweep.refine=regime --set sweep.refine_levels=3 \
    --set axis.rho.count=17 --set axis.gamma.count=17 --set model.samples=10
plot refined.h5 refined 100 --format png --field regime,impacts
grep -q "inferred by the refinement" err.txt || die "impactplot.py does not say that points are inferred"
checks <<'END'
map refined_regime refined.h5 --dpi 100 --inches 3.5 --classes regime --require icc,cc
map refined_impacts refined.h5 --dpi 100 --inches 3.5 --require 'not computed'
texts refined_regime
END

say "a partial chatter file (stopped by SIGUSR1): pending points drawn as not computed"
t0=$(date +%s%N)
engine calibrate.h5 "$JOBS/example.ini" --set axis.rho.count=12 --set axis.gamma.count=12 \
    --set model.samples=2000
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000 - 300)) # less the start-up time
[ "$ms" -ge 20 ] || ms=20
samples=$((2000 * 6000 / ms)) # the whole run about 6 s
[ "$samples" -ge 20000 ] || samples=20000
"$IMPACTSWEEP" run "$JOBS/example.ini" --set axis.rho.count=12 --set axis.gamma.count=12 \
    --set model.samples="$samples" --set sweep.unit_size=4 --output partial.h5 \
    --progress lines >partial.out 2>partial.err &
run_pid=$!
done_points=0
for _ in $(seq 1 300); do
    kill -0 "$run_pid" 2>/dev/null || die "the run to stop ended early: $(tail -n 3 partial.err)"
    if [ -f partial.h5 ] && line=$("$IMPACTSWEEP" info partial.h5 2>/dev/null | grep '^points:')
    then
        done_points=$(echo "$line" | sed -E 's/.* ([0-9]+) done.*/\1/')
        [ "$done_points" -ge 72 ] && break
    fi
    sleep 0.1
done
[ "$done_points" -ge 72 ] || die "partial.h5 did not get 72 points done in 30 s"
kill -USR1 "$run_pid"
status=0
wait "$run_pid" || status=$?
run_pid=""
[ "$status" -eq 75 ] || die "the run stopped by SIGUSR1 exited $status, expected 75"
plot partial.h5 partial 100 --format png,pdf --field regime,impacts
expect_files partial regime impacts
grep -q "not computed" err.txt || die "impactplot.py does not say that points are not computed"
checks <<'END'
map partial_regime partial.h5 --dpi 100 --inches 3.5 --classes regime --require icc,cc,'not computed'
map partial_impacts partial.h5 --dpi 100 --inches 3.5 --require 'not computed'
meta partial_regime partial.h5
END

say "collision: CoR surface (filled contours) and outcome map over (pi1, pi2), DOPRI5"
engine surface.h5 "$JOBS/collision_bwshc_surface.ini" --set axis.pi1.count=14 \
    --set axis.pi2.count=12 --set model.integrator=dopri5
plot surface.h5 surface 100 --format png,pdf
expect_files surface cor
grep -q "figure outcome not made: every computed point is separated" err.txt ||
    die "a one-class outcome map made by default, or not said why not"
plot surface.h5 surface 100 --format png,pdf --field outcome
expect_files surface outcome
grep -q '"kind": "filled_contours"' surface_cor.json ||
    die "the CoR surface is not drawn as filled contours"
say "collision with failed points (a step budget too small): drawn as failed"
engine failed.h5 "$JOBS/collision_bwshc_surface.ini" --set axis.pi1.count=14 \
    --set axis.pi2.count=12 --set model.max_steps=90
plot failed.h5 failed 100 --format png --field cor,outcome
expect_files failed cor outcome
say "collision e(v0) over one axis, and for two values of pi1b (one curve per value)"
engine ev0.h5 "$JOBS/collision_bwshc_v0.ini" --set axis.v0.count=25
plot ev0.h5 ev0 100 --format png
expect_files ev0 cor
sed '/^pi1b *=/d' "$JOBS/collision_bwshc_v0.ini" >ev0_family.ini
printf '\n[axis.pi1b]\nvalues = 0.2, 1\n' >>ev0_family.ini
engine ev0_family.h5 ev0_family.ini --set axis.v0.count=12 --set model.integrator=dopri5
plot ev0_family.h5 ev0_family 80 --format png --field cor_v0 --size double
expect_files ev0_family cor_v0
checks <<'END'
map surface_outcome surface.h5 --dpi 100 --inches 3.5 --classes outcome --require separated
panels surface_outcome --count 1 --note "separated at every point"
texts surface_cor
texts surface_outcome
fonts surface_cor.pdf
meta surface_cor surface.h5
levels surface_cor
colourbars surface_cor surface.h5 --max-chars 24
units surface_cor --colourbar '$e$' --x '$\pi_{1}$' --y '$\pi_{2}$'
ticks surface_cor
units ev0_cor --x '$v_{0}$ [m s$^{-1}$]' --y '$e$'
ticks ev0_cor
ticks ev0_family_cor_v0
map failed_outcome failed.h5 --dpi 100 --inches 3.5 --classes outcome --require separated,failed
map failed_cor failed.h5 --dpi 100 --inches 3.5 --require failed
line ev0_cor ev0.h5 --dpi 100 --field cor --colour '#0072b2'
line ev0_family_cor_v0 ev0_family.h5 --dpi 80 --field cor --colour '#440154'
END

say "collision: --facet law, a panel per law (e(v0) of bwshc and hunt-crossley)"
sed '/^law *=/d' "$JOBS/collision_bwshc_v0.ini" >laws.ini
printf '\n[axis.law]\nvalues = bwshc, hunt-crossley\n' >>laws.ini
engine laws.h5 laws.ini --set axis.v0.count=10 --set model.integrator=dopri5
plot laws.h5 laws 80 --format png --facet law --field cor
expect_files laws cor
checks <<'END'
panels laws_cor --count 2 --titles "law = bwshc,law = hunt-crossley" --grid 1x2
texts laws_cor
END

say "stop oscillator: regime maps (free / impacting at 72 dpi, only it; impacting / undecided) and Zeno-region map"
printf '%s\n' "[sweep]" "model = stop-oscillator" "title = stop oscillator: regime map" \
    "[model]" "k = 1" "s = 1" "x1_0 = 0" "x2_0 = 0.5" "v2_0 = 0" "t_end = 100" \
    "[axis.v1_0]" "from = 0.2" "to = 3" "count = 15" \
    "[axis.epsilon]" "from = 0.05" "to = 0.95" "count = 8" >stop_regime.ini
engine stop_regime.h5 stop_regime.ini
plot stop_regime.h5 stop_regime 72 --format png --field regime
expect_files stop_regime regime
[ "$(wc -l <out.txt)" -eq 2 ] || die "--field regime wrote $(wc -l <out.txt) files, expected 2"
engine zeno.h5 "$JOBS/stop_zeno_map.ini" --set axis.x2_0.count=18 --set axis.v1_0.count=18
plot zeno.h5 zeno 100 --format png,pdf
expect_files zeno zeno
# that job's t_end = 5 is the Zeno figure's: its regime map is mostly undecided, not made
# by default (said on stderr, naming t_end), drawn with that note when asked for
grep -q "figure regime not made: [0-9]*% undecided: t_end = 5" err.txt ||
    die "the mostly undecided regime map of stop_zeno_map.ini made, or not said why not"
! grep -qx zeno_regime.png out.txt || die "a mostly undecided regime map made by default"
plot zeno.h5 zeno 100 --format png --field regime
checks <<'END'
panels zeno_regime --count 1 --note "undecided: t_end = 5 too short"
END
# the regime map's job at a short horizon: impacting proved where the energy fell below
# the sticking level, undecided (drawn visibly, in its own colour) where it has not yet;
# with fragility = 1, whose map (robust, fragile, undecided without a twin) is drawn too
engine short.h5 "$JOBS/stop_regime_map.ini" --set axis.k12.count=12 \
    --set axis.epsilon.count=10 --set model.t_end=30 --set model.orbit_t_max=0 \
    --set model.fragility=1
plot short.h5 short 100 --format png --field regime
expect_files short regime
plot short.h5 short 100 --format png --field fragile
expect_files short fragile
checks <<'END'
map stop_regime_regime stop_regime.h5 --dpi 72 --inches 3.5 --classes regime --require free,impacting
map short_regime short.h5 --dpi 100 --inches 3.5 --classes regime --require impacting,undecided
map zeno_zeno zeno.h5 --dpi 100 --inches 3.5 --classes zeno --require zeno,no_zeno
panels zeno_zeno --count 1 --labelled
texts zeno_zeno
levels zeno_zeno
units zeno_zeno --x '$x_{2,0}$ [$L$]' --y '$v_{1,0}$ [$L\,T^{-1}$]'
ticks zeno_zeno
ticks short_regime
texts short_regime
meta zeno_zeno zeno.h5
END

say "trace files (impactsweep trace): loop, history, impacts, phase, energy"
"$IMPACTSWEEP" trace collision law=bwshc pi1=0.5 pi2=1 pi3=0.5 n=1 p=1.5 alpha=0.5 A=1 \
    --output tr_collision.h5 >out.txt 2>err.txt || die "impactsweep trace collision failed"
"$IMPACTSWEEP" trace chatter rho=0.3 gamma=0.1 samples=8 --drop 5 --output tr_chatter.h5 \
    >out.txt 2>err.txt || die "impactsweep trace chatter failed"
"$IMPACTSWEEP" trace stop-oscillator k=1 k12=1 s=1 epsilon=0.7 x1_0=1 v1_0=-0.1 x2_0=3 \
    v2_0=-0.5 t_end=20 --output tr_stop.h5 >out.txt 2>err.txt ||
    die "impactsweep trace stop-oscillator failed"
for t in tr_collision tr_stop; do
    plot "$t.h5" "$t" 100 --format png,pdf
done
plot tr_chatter.h5 tr_chatter 100 --format png,pdf --title
checks <<'END'
texts tr_collision_loop
texts tr_collision_history
texts tr_chatter_impacts
texts tr_stop_phase
texts tr_stop_energy
fonts tr_collision_loop.pdf tr_chatter_impacts.pdf tr_stop_phase.pdf
notitle tr_collision_loop
notitle tr_collision_history
notitle tr_stop_phase
notitle tr_stop_energy
title tr_chatter_impacts --text "drop 5: "
units tr_stop_phase --x '$x_{1}$ [$L$]' --y '$v_{1}$ [$L\,T^{-1}$]'
units tr_stop_energy --x '$t$ [$T$]' --y '$E$ [$m\,L^{2}\,T^{-2}$]'
units tr_collision_loop --x '$-X$ [$X_{c}$]'
ticks tr_collision_history
ticks tr_stop_phase
ticks tr_chatter_impacts
metadata tr_collision_loop --formats png,pdf
metadata tr_chatter_impacts --formats png,pdf
metadata tr_stop_phase --formats png,pdf
END

say "a plug-in's outputs (test plug-in ball): short labels, SI units, log colours 4e-5 .. 4e-3"
[ -f "${PLUGIN_DIR:-}/libball.so" ] || die "no libball.so in PLUGIN_DIR (run the test through ctest)"
printf '%s\n' "[sweep]" "model = ball" "[model]" "g = 9.81" \
    "[axis.h]" "from = 1e-10" "to = 1e-6" "count = 9" "scale = log" \
    "[axis.r]" "from = 0.1" "to = 0.9" "count = 6" >ball.ini
IMPACTSWEEP_MODEL_PATH="$PLUGIN_DIR" engine ball.h5 ball.ini
plot ball.h5 ball 80 --format png --field v_first
checks <<'END'
colourbars ball_v_first ball.h5 --max-chars 24
units ball_v_first --x '$h$ [m]' --colourbar '$v_{\mathrm{first}}$ [m s$^{-1}$]'
ticks ball_v_first
texts ball_v_first
END

say "as a library: no backend switch on import, a Dataset and an Axes in, the artists out"
MPLBACKEND=svg "$PYTHON" - "$ROOT/analysis" <<'PY' || die "impactplot as a library"
import sys
sys.path.insert(0, sys.argv[1])
import matplotlib
before = matplotlib.get_backend()
import impactplot
assert "matplotlib.pyplot" not in sys.modules, "importing impactplot loaded pyplot"
assert matplotlib.get_backend() == before == "svg", (before, matplotlib.get_backend())
from matplotlib.figure import Figure
ds = impactplot.open_dataset("three.h5")
fig = Figure()
axes = fig.subplots(1, 3)
d = impactplot.chatter.regime(ds.sel(n=5), axes[0])
assert d.artists and d.handles and d.ax is axes[0], d
assert any(h.get_label() == "ICC" for h in d.handles)
c = impactplot.chatter.impacts(ds.isel(n=0), axes[1])
assert c.mappable is not None and c.contours, c
f = impactplot.chatter.fractions(ds.sel(n=3), [axes[2], fig.add_subplot(2, 3, 6),
                                              fig.add_subplot(2, 3, 3)])
assert len(f) == 3
try:
    impactplot.chatter.regime(ds, axes[0])
    raise SystemExit("three axes were drawn without a selection")
except ValueError as e:
    assert "ds.sel(n=" in str(e), e
with impactplot.journal_style():
    assert matplotlib.rcParams["pdf.fonttype"] == 42
assert matplotlib.get_backend() == "svg"
# docs/guide.md's example: rho on the x axis
import xarray as xr
ds = xr.open_dataset("chatter.h5", engine="h5netcdf")
import matplotlib.pyplot as plt
ds.p_cc.plot(x="rho")
xlabel = " ".join(plt.gca().get_xlabel().split())  # xarray wraps long labels
assert xlabel.startswith(ds.rho.attrs["long_name"]), xlabel
print("    library: regime, impacts, fractions drawn into given Axes; backend untouched")
PY

say "refusals: a non-impactsweep HDF5 file, a text file, a missing file (exit 2)"
"$PYTHON" "$CHECK" nonresult plain.h5
echo "rho gamma p_icc" >notes.txt
for bad in "plain.h5:not an impactsweep result file" "notes.txt:not an impactsweep result file" \
    "missing.h5:no such file"; do
    file=${bad%%:*} want=${bad#*:}
    status=0
    "$PYTHON" "$TOOL" "$file" --output refused >out.txt 2>err.txt || status=$?
    [ "$status" -eq 2 ] || die "impactplot.py $file exited $status, expected 2"
    [ "$(wc -l <err.txt)" -eq 1 ] || die "impactplot.py $file: expected a one-line message"
    grep -q "$file: $want" err.txt || die "impactplot.py $file: no message '$file: $want'"
    [ ! -s out.txt ] || die "impactplot.py $file printed files"
    if compgen -G "refused*" >/dev/null; then die "impactplot.py $file wrote files"; fi
done

say "scripts/figure.sh: ./example.h5 (its default) to PNG and PDF pictures"
mkdir figure
cp chatter.h5 figure/example.h5
(cd figure && env -u IMPACTSWEEP_OUTPUT "$ROOT/scripts/figure.sh" --field regime,cone \
    >../out.txt 2>../err.txt) ||
    die "scripts/figure.sh failed"
for kind in regime cone; do
    for ext in png pdf; do
        [ -s "figure/example_$kind.$ext" ] || die "figure.sh did not write example_$kind.$ext"
        grep -qx "example_$kind.$ext" out.txt || die "figure.sh did not print example_$kind.$ext"
    done
done
