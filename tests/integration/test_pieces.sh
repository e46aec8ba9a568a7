# test_pieces.sh: job-array pieces of equal estimated cost, on the synthetic model whose
# cost per point is a parameter (cpu_cost: a busy wait in CPU time, which the estimate
# measures, so a busy machine does not change the map), swept as an axis so that the cost
# map is known: a cheap grid with one costly row.
#  1. `run --dry-run --pieces N` gives N pieces that tile the grid, the costly row cut
#     into pieces of its own, the estimated slowest piece near the mean where pieces of
#     equal size carry the costly row in one;
#  2. the pieces, run with their points (--piece I/N:FIRST-LAST), merge into the file of
#     one whole run; their files record the piece with its points; a piece resumed with
#     other points is refused; a piece that is not a box of the grid is refused;
#  3. merge checks the pieces: a missing piece leaves points pending (exit 1); pieces of
#     two cuts of the same job overlap in agreement (the same I/N, other points); the
#     same piece (box) twice is refused; another job's piece is refused;
#  4. --pieces is refused where it means nothing (no dry run, a piece, too many pieces).
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
BIN=$IMPACTSWEEP_TEST
# 6 rows of about 1 ms a point, then one of 40 ms a point; 8 points a row: 56 points,
# the last row 8 x 40 = 320 ms of the 385 in all
printf '%s\n' "[sweep]" "model = synthetic" "[axis.cpu_cost]" \
    "values = 0.001, 0.0011, 0.0012, 0.0013, 0.0014, 0.0015, 0.04" \
    "[axis.x]" "from = 0" "to = 7" "count = 8" >costly.ini

say "1. the dry run cuts 4 pieces of equal estimated cost"
expect_status 0 "--dry-run --pieces 4" "$BIN" run costly.ini --dry-run --pieces 4 --output whole.h5
cat out.txt
read -r -a b <<<"$(sed -n 's/^piece bounds: *//p' out.txt)"
[ "${#b[@]}" = 5 ] && [ "${b[0]}" = 0 ] && [ "${b[4]}" = 56 ] || die "bounds: ${b[*]}"
for i in 0 1 2 3; do [ "${b[$i]}" -lt "${b[$((i + 1))]}" ] || die "bounds not rising: ${b[*]}"; done
# the costly row (points 48-55) holds 83 % of the cost: pieces of its own
[ "${b[1]}" -le 48 ] && [ "${b[2]}" -gt 48 ] || die "the costly row did not get pieces of its own: ${b[*]}"
read -r by_cost by_size <<<"$(sed -n 's/^pieces: .*the slowest \([0-9.]*\) x .*: \([0-9.]*\) x)$/\1 \2/p' out.txt)"
awk -v c="$by_cost" -v s="$by_size" 'BEGIN { exit !(c <= 1.5 && s >= 2.5) }' ||
    die "estimated slowest/mean: $by_cost by cost (want <= 1.5), $by_size by size (want >= 2.5)"
expect_status 0 "pieces of equal size, for comparison" "$BIN" run costly.ini --piece 3/4 --dry-run --output x.h5
grep -q "^points: *16 (piece 3/4 of 56)" out.txt || die "equal sizes: $(grep points: out.txt)"

say "2. the pieces, run with their points, merge into the whole run's file"
expect_status 0 "the whole run" "$BIN" run costly.ini --output whole.h5
pieces=()
for i in 0 1 2 3; do
    spec="$i/4:${b[$i]}-$((b[i + 1] - 1))"
    expect_status 0 "piece $spec" "$BIN" run costly.ini --piece "$spec" --output "p$i.h5"
    [ "$(points "p$i.h5" total)" = $((b[i + 1] - b[i])) ] || die "piece $spec holds $(points "p$i.h5" total) points"
    "$PYTHON" -c 'import h5py, sys; a = h5py.File(sys.argv[1], "r").attrs
assert a["piece"] in (sys.argv[2], sys.argv[2].encode()), a["piece"]
assert int(a["piece_first"]) == int(sys.argv[3])' "p$i.h5" "$spec" "${b[$i]}" || die "p$i.h5 does not record piece $spec"
    pieces+=("p$i.h5")
done
expect_status 0 "merge" "$BIN" merge merged.h5 "${pieces[@]}"
same_results whole.h5 merged.h5 "the merged pieces of equal cost"
"$PYTHON" -c 'import xarray as xr, sys; ds = xr.open_dataset(sys.argv[1], engine="h5netcdf")
assert set(ds["sum"].dims) == {"cpu_cost", "x"}, ds["sum"].dims' p3.h5 || die "a piece's file does not open in xarray with its axes"
expect_status 2 "resuming a piece with other points" "$BIN" run costly.ini --piece "1/4:0-$((b[1] - 1))" \
    --output p1.h5 --resume
grep -q "holds piece 1/4:${b[1]}-$((b[2] - 1)) of the grid" err.txt || die "the refusal: $(cat err.txt)"
expect_status 2 "points that are not a box (across rows)" "$BIN" run costly.ini --piece 0/4:5-10 --output bad.h5
grep -q "points 5 to 10 are not a piece" err.txt || die "the refusal: $(cat err.txt)"
for bad in 0/4:10-60 0/4:7-3 4/4:0-7 0/1:0-7 1/4:x-3 1/4:3-5x 1/4:-1-3 1/4:3; do
    expect_status 2 "--piece '$bad'" "$BIN" run costly.ini --piece "$bad" --output bad.h5
done
[ ! -e bad.h5 ] || die "a refused piece left a file"
expect_status 0 "a piece of the whole grid given with its points" "$BIN" run costly.ini --piece 0/1:0-55 --dry-run \
    --output x.h5

say "3. merge checks the pieces"
expect_status 1 "a piece missing" "$BIN" merge gap.h5 p0.h5 p1.h5 p3.h5
grep -q "$((b[3] - b[2])) pending" err.txt || die "the missing piece's points are not pending: $(cat err.txt)"
for i in 0 1 2 3; do
    expect_status 0 "equal-size piece $i/4" "$BIN" run costly.ini --piece "$i/4" --output "e$i.h5"
done
expect_status 0 "pieces of two cuts" "$BIN" merge mixed.h5 e0.h5 p1.h5 e2.h5 p2.h5 e3.h5 p0.h5
same_results whole.h5 mixed.h5 "pieces of two cuts of the job, merged"
cp p1.h5 p1copy.h5
expect_status 2 "the same piece twice" "$BIN" merge twice.h5 p0.h5 p1.h5 p1copy.h5 p2.h5 p3.h5
grep -q "both piece 1/4 of the grid (points ${b[1]} to $((b[2] - 1)))" err.txt || die "the refusal: $(cat err.txt)"
expect_status 0 "another job's piece" "$BIN" run costly.ini --set axis.x.to=8 --piece 0/4 --output other.h5
expect_status 2 "a piece of another job" "$BIN" merge m.h5 p0.h5 other.h5 p2.h5 p3.h5
grep -q "another job" err.txt || die "the refusal: $(cat err.txt)"

say "4. --pieces is refused where it means nothing"
expect_status 2 "--pieces without --dry-run" "$BIN" run costly.ini --pieces 4 --output x.h5
expect_status 2 "--pieces 0" "$BIN" run costly.ini --dry-run --pieces 0 --output x.h5
expect_status 2 "--pieces 57 for 56 points" "$BIN" run costly.ini --dry-run --pieces 57 --output x.h5
grep -q "57 pieces for 56 points" err.txt || die "the refusal: $(cat err.txt)"
expect_status 2 "--pieces of a piece" "$BIN" run costly.ini --dry-run --pieces 2 --piece 1/2 --output x.h5
echo "PASS"
