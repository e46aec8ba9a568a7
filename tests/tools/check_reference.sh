# check_reference.sh IMPACTSWEEP REFERENCE.md: the committed reference (docs/reference.md)
# is what the built program writes from its tables (`impactsweep help --reference`), and
# its example job runs. A table changed without the reference written again fails here,
# with the difference and the command that writes it.
set -euo pipefail
program=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
reference=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/impactsweep-reference-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$program" help --reference >"$work/reference.md"
if ! diff -u "$reference" "$work/reference.md" >"$work/diff.txt"; then
    echo "FAIL: docs/reference.md is not what the program writes from its tables now:" >&2
    head -n 80 "$work/diff.txt" >&2
    echo "Write it again from the build (then commit it): build/impactsweep help --reference > docs/reference.md" >&2
    exit 1
fi
# the example job: the reference's ```ini block, checked as a run would (a dry run)
awk '/^```ini$/ { on = 1; next } on && /^```$/ { exit } on' "$reference" >"$work/example.ini"
grep -q '^\[sweep\]' "$work/example.ini" || { echo "FAIL: no example job in $reference" >&2; exit 1; }
(cd "$work" && "$program" run example.ini --dry-run --quiet >dry.txt 2>dry_err.txt) || {
    echo "FAIL: the reference's example job does not run: $(cat "$work/dry_err.txt")" >&2
    exit 1
}
echo "PASS: docs/reference.md is current ($(wc -l <"$reference") lines) and its example job runs"
