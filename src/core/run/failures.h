/* failures.h: every failed point of a result file, named (`impactsweep info --failures`,
 * and the first few under `impactsweep info`): read from the file's statuses in blocks
 * (bounded memory, whatever the grid), each with its grid index, its coordinates, its
 * status and, where the run log gives one, the reason the engine failed it. The statuses
 * are the list: covered by the file's checksums, kept by --resume (a point computed
 * again and now done is no longer failed) and carried by merge (which carries the
 * pieces' reasons too, is_failures_carry). */
#ifndef IMPACTSWEEP_FAILURES_H
#define IMPACTSWEEP_FAILURES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "results.h"

/* Lines naming failed points that a merge carries from its pieces' logs into its own. */
#define IS_FAILURES_CARRIED 200

/* Prints the failed points of the file at `path` (this process alone), one line each,
 * "  grid point 137 (x = 3, y = 17): failed_crash: REASON", at most `limit` of them (0:
 * all); with a limit, a last line says how to list the rest. *failed: how many the file
 * holds (all are counted, whatever the limit). */
is_code is_failures_print(const char *path, uint64_t limit, FILE *out, uint64_t *failed,
                          is_error *err);

/* Rank 0 of a merge, into the merged file `out` (open for writing): the run-log lines of
 * the pieces at paths[0 .. n - 1] that name failed points with their reasons, up to
 * IS_FAILURES_CARRIED (then a line counts the rest). */
is_code is_failures_carry(is_results *out, const char *const *paths, size_t n, is_error *err);

#endif
