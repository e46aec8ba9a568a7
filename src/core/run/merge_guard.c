/* merge_guard.c: an existing merge output is replaced only by a better one (see
 * merge_guard.h). */
#include "merge_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collective.h"
#include "digest.h"
#include "reason_table.h"
#include "run.h"
#include "verify.h"

/* Points compared at a time by a rank (two variables' bytes and both statuses). */
#define GUARD_BLOCK (UINT64_C(1) << 18)
#define NONE UINT64_MAX

static void first_log_line(const char *text, void *user)
{
    char *line = user;
    if (!*line)
        snprintf(line, IS_RESULTS_LOG_LINE, "%s", text);
}

is_code is_merge_claim_output(const is_job *job, const char *output, int overwrite, int *replacing,
                              is_lock **lock, is_error *err)
{
    *replacing = 0;
    is_code rc = is_run_check_output(job, NULL, overwrite, err);
    if (rc == IS_OK)
        rc = is_results_check_space(job, output, err);
    if (rc == IS_OK)
        rc = is_lock_acquire(output, lock, err);
    if (rc != IS_OK || access(output, F_OK) != 0)
        return rc;
    is_results *r = NULL;
    is_error detail;
    if (is_results_open(output, MPI_COMM_NULL, IS_RESULTS_READ, &r, &detail) != IS_OK ||
        (is_results_format(r) >= IS_RESULTS_FORMAT_CHECKSUMS &&
         is_digest_check_metadata(r, &detail) != IS_OK)) {
        is_results_close(&r, NULL);
        return is_error_set(err, IS_EXISTS,
                            "%s exists and is not a result file this merge may replace (%s); "
                            "it is left as it is: remove it, or merge into another file",
                            output, detail.message);
    }
    char theirs[64], piece[64], wanted[32], line[IS_RESULTS_LOG_LINE] = "";
    is_results_attribute(r, "job_fingerprint", theirs, sizeof theirs);
    is_results_attribute(r, "piece", piece, sizeof piece);
    is_results_read_log(r, first_log_line, line, NULL);
    is_results_close(&r, NULL);
    snprintf(wanted, sizeof wanted, "%016llx", (unsigned long long)job->fingerprint);
    if (strcmp(theirs, wanted) != 0 || strcmp(piece, "0/1") != 0)
        return is_error_set(err, IS_EXISTS,
                            "%s holds the results of another job (fingerprint %s, piece %s; "
                            "these pieces: %s, the whole grid): a merge replaces only a "
                            "result of its own job; it is left as it is: remove it, or merge "
                            "into another file",
                            output, theirs, piece, wanted);
    if (!overwrite && !strstr(line, " merged from "))
        return is_error_set(err, IS_EXISTS,
                            "%s exists and is not an earlier merge of these pieces; use "
                            "--overwrite to replace it (with a merge that holds every point "
                            "it holds)",
                            output);
    *replacing = 1;
    return IS_OK;
}

typedef struct guard {
    is_results *old, *merged;
    uint8_t *old_status, *new_status;
    unsigned char *a, *b;
    uint64_t lost, differ, first_lost, first_differ;
    size_t differ_variable;
    int texts;                         /* the reasons compared by text (below) */
    int records;                       /* the checksums compared (neither keeps reasons) */
    is_reason_table old_reasons, new_reasons;
} guard;

/* Point i's reason in a table ("" for none): two files number the same texts differently. */
static const char *reason_text(const is_reason_table *t, uint8_t code)
{
    const char *text = code ? is_reason_table_text(t, code) : "";
    return text ? text : "(unknown)";
}

/* Points at .. at + n - 1: every point the old file stores, the merge stores alike. */
static is_code compare_block(guard *g, uint64_t at, uint64_t n, is_error *err)
{
    size_t status_var = is_results_variable_count(g->old) - 1;
    is_code rc = is_results_read_raw(g->old, status_var, at, n, g->old_status, err);
    if (rc == IS_OK)
        rc = is_results_read_raw(g->merged, status_var, at, n, g->new_status, err);
    for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
        if (g->old_status[i] == IS_POINT_PENDING || g->new_status[i] != IS_POINT_PENDING)
            continue;
        g->first_lost = g->lost++ ? g->first_lost : at + i;
    }
    /* the outputs and the checksums (the status's place) of the points both hold; where
     * the files keep reasons, their texts instead of the checksums (which cover the
     * codes: the same text may have another code in each file) */
    size_t last = g->texts || g->records ? status_var : status_var - 1; /* (one keeps reasons:
                                             the records differ, outputs and status compared) */
    for (size_t each = 0; each <= last && last != (size_t)-1 && rc == IS_OK; each++) {
        int texts = each == status_var && g->texts;
        size_t v = each < status_var ? each
                   : texts           ? is_results_reason_variable(g->old)
                                     : is_results_check_variable(g->old);
        size_t size = is_results_variable_at(g->old, v)->element_size;
        rc = texts ? is_results_read_reasons(g->old, at, n, g->a, err)
                   : is_results_read_raw(g->old, v, at, n, g->a, err);
        if (rc == IS_OK)
            rc = texts ? is_results_read_reasons(g->merged, at, n, g->b, err)
                       : is_results_read_raw(g->merged, v, at, n, g->b, err);
        for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
            if (g->old_status[i] == IS_POINT_PENDING || g->new_status[i] == IS_POINT_PENDING)
                continue;
            int same = texts ? strcmp(reason_text(&g->old_reasons, g->a[i]),
                                      reason_text(&g->new_reasons, g->b[i])) == 0
                             : memcmp(g->a + i * size, g->b + i * size, size) == 0;
            if (g->old_status[i] == g->new_status[i] && same)
                continue;
            if (!g->differ++ || at + i < g->first_differ)
                g->first_differ = at + i, g->differ_variable = v;
        }
    }
    return rc;
}

/* The refusal, on the rank that found the first point concerned. */
static is_code refuse(const char *output, guard *g, uint64_t lost, uint64_t differ, is_error *err)
{
    char where[1024];
    is_verify_point_coordinates(g->old, lost ? g->first_lost : g->first_differ, where,
                                sizeof where);
    if (lost)
        return is_error_set(err, IS_EXISTS,
                            "merge refused: %s holds %llu point%s that the merge does not "
                            "(the first: point %llu, %s): a merge never replaces a result "
                            "with a less complete one. Give every piece that made it, or "
                            "merge into another file; %s is left as it was",
                            output, (unsigned long long)lost, lost == 1 ? "" : "s",
                            (unsigned long long)g->first_lost, where, output);
    return is_error_set(err, IS_EXISTS,
                        "merge refused: %llu point%s of %s differ%s from the merge (the first: "
                        "point %llu, %s, in %s): the pieces are not what made it; %s is left "
                        "as it was",
                        (unsigned long long)differ, differ == 1 ? "" : "s", output,
                        differ == 1 ? "s" : "", (unsigned long long)g->first_differ, where,
                        is_results_variable_at(g->old, g->differ_variable)->name, output);
}

is_code is_merge_guard(const char *output, is_results *merged, MPI_Comm comm, is_stop *stop,
                       is_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    guard g = {.merged = merged};
    is_code rc =
        is_collective_agree(is_results_open(output, comm, IS_RESULTS_READ, &g.old, err), comm, err);
    uint64_t stored = 0;
    if (rc == IS_OK) /* damage in the old file is refused: no one can tell what it held */
        rc = is_verify_file(g.old, NULL, comm, stop, &stored, err);
    if (rc == IS_OK && is_results_point_count(g.old) != is_results_point_count(merged))
        rc = is_error_set(err, IS_EXISTS, "%s holds another grid than the merge", output);
    if (rc != IS_OK) {
        is_results_close(&g.old, NULL);
        return rc;
    }
    g.old_status = malloc(GUARD_BLOCK);
    g.new_status = malloc(GUARD_BLOCK);
    g.a = malloc(GUARD_BLOCK * 8);
    g.b = malloc(GUARD_BLOCK * 8);
    rc = g.old_status && g.new_status && g.a && g.b ? IS_OK
                                                    : is_error_set(err, IS_NOMEM, "out of memory");
    g.texts = is_results_has_reasons(g.old) && is_results_has_reasons(merged);
    g.records = !is_results_has_reasons(g.old) && !is_results_has_reasons(merged);
    if (rc == IS_OK && g.texts)
        rc = is_reason_table_init(&g.old_reasons, g.old, 0, err);
    if (rc == IS_OK && g.texts)
        rc = is_reason_table_init(&g.new_reasons, merged, 0, err);
    rc = is_collective_agree(rc, comm, err);
    uint64_t n = is_results_point_count(g.old), p = (uint64_t)size, k = (uint64_t)rank;
    uint64_t lo = n / p * k + n % p * k / p, hi = n / p * (k + 1) + n % p * (k + 1) / p;
    uint64_t most = is_results_block_points(g.old, GUARD_BLOCK); /* (8 bytes a point) */
    for (uint64_t at = lo; at < hi && rc == IS_OK && !is_stop_poll(stop); at += most)
        rc = compare_block(&g, at, hi - at < most ? hi - at : most, err);
    rc = is_collective_agree(rc, comm, err);
    uint64_t mine[2] = {g.lost ? g.first_lost : NONE, g.differ ? g.first_differ : NONE};
    uint64_t counts[2] = {g.lost, g.differ}, first[2], total[2];
    MPI_Allreduce(mine, first, 2, MPI_UINT64_T, MPI_MIN, comm);
    MPI_Allreduce(counts, total, 2, MPI_UINT64_T, MPI_SUM, comm);
    if (rc == IS_OK && (total[0] || total[1])) {
        int which = total[0] ? 0 : 1;
        rc = mine[which] == first[which] ? refuse(output, &g, total[0], total[1], err) : IS_EXISTS;
        rc = is_collective_agree(rc, comm, err);
    }
    free(g.old_status);
    free(g.new_status);
    free(g.a);
    free(g.b);
    if (g.old_reasons.texts)
        is_reason_table_free(&g.old_reasons);
    if (g.new_reasons.texts)
        is_reason_table_free(&g.new_reasons);
    is_results_close(&g.old, NULL);
    return rc;
}
