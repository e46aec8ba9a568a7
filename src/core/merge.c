/* merge.c: merging job-array pieces (see merge.h).
 *
 * Rank 0 checks the inputs (same job, none of them the output) and takes the output's
 * lock; all ranks build the output under its .partial name; then, input after input
 * (ordered by their place in the grid), the ranks share its points and copy them in
 * blocks: whole blocks where the input overlaps no earlier one (the usual case: pieces
 * tile the grid), point by point with a comparison where it does. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collective.h"
#include "engine.h"
#include "job.h"
#include "lock.h"
#include "provenance.h"
#include "results.h"
#include "run.h"

/* Points copied at a time by a rank. */
#define MERGE_BLOCK (UINT64_C(1) << 18)

typedef struct input {
    uint64_t first, count; /* its points in the grid */
    uint64_t overlaps;     /* 1: it shares points with an input merged before it */
    uint64_t position;     /* its place in the list given */
} input;

static int by_first(const void *a, const void *b)
{
    const input *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first ? 1 : (x->position > y->position) - (x->position < y->position);
}

/* Rank 0: reads and checks the inputs; *text is the first one's job (caller frees). */
static is_code survey(const char *output, const char *const *paths, size_t n, input *inputs,
                      char **text, is_error *err)
{
    struct stat out_st;
    int output_exists = stat(output, &out_st) == 0;
    char fingerprint[64] = "", other[64];
    is_code rc = IS_OK;
    for (size_t i = 0; i < n && rc == IS_OK; i++) {
        struct stat st;
        if (output_exists && stat(paths[i], &st) == 0 && st.st_dev == out_st.st_dev &&
            st.st_ino == out_st.st_ino) {
            rc = is_error_set(err, IS_USAGE,
                              "%s is both the output and an input; merge into a new file",
                              paths[i]);
            break;
        }
        is_results *r = NULL;
        rc = is_results_open(paths[i], MPI_COMM_NULL, IS_RESULTS_READ, &r, err);
        if (rc != IS_OK)
            break;
        is_results_attribute(r, "job_fingerprint", other, sizeof other);
        inputs[i].first = is_results_first_point(r);
        inputs[i].count = is_results_point_count(r);
        inputs[i].position = i;
        if (i == 0) {
            snprintf(fingerprint, sizeof fingerprint, "%s", other);
            *text = is_results_job_text(r);
            if (!*text)
                rc = is_error_set(err, IS_NOT_RESULT, "%s: records no job", paths[i]);
        } else if (strcmp(other, fingerprint) != 0) {
            rc = is_error_set(err, IS_MISMATCH,
                              "%s comes from another job than %s (fingerprint %s, not %s)",
                              paths[i], paths[0], other, fingerprint);
        }
        is_results_close(&r, NULL);
    }
    if (rc != IS_OK)
        return rc;
    qsort(inputs, n, sizeof *inputs, by_first);
    uint64_t reach = 0; /* the end of everything merged before */
    for (size_t i = 0; i < n; i++) {
        inputs[i].overlaps = i > 0 && inputs[i].first < reach;
        if (inputs[i].first + inputs[i].count > reach)
            reach = inputs[i].first + inputs[i].count;
    }
    return IS_OK;
}

static void first_log_line(const char *text, void *user)
{
    char *line = user;
    if (!*line)
        snprintf(line, IS_RESULTS_LOG_LINE, "%s", text);
}

/* Is `output` an earlier merge of this job (same fingerprint, the whole grid)? Merging
 * again may replace it, as it can always be made again from its pieces; this also makes
 * a merge killed between publishing its file and removing its lock safe to repeat. */
static int earlier_merge(const char *output, const char *fingerprint)
{
    is_results *r = NULL;
    if (is_results_open(output, MPI_COMM_NULL, IS_RESULTS_READ, &r, NULL) != IS_OK)
        return 0;
    char theirs[64], piece[64], line[IS_RESULTS_LOG_LINE] = "";
    is_results_attribute(r, "job_fingerprint", theirs, sizeof theirs);
    is_results_attribute(r, "piece", piece, sizeof piece);
    is_results_read_log(r, first_log_line, line, NULL);
    is_results_close(&r, NULL);
    return strcmp(theirs, fingerprint) == 0 && strcmp(piece, "0/1") == 0 &&
           strstr(line, " merged from ") != NULL;
}

/* The job of the merged file: the pieces' job, as one whole-grid run into `output`. */
static is_code whole_job(const char *origin, const char *text, const char *output,
                         is_models *models, is_job **job, is_error *err)
{
    is_error detail;
    if (is_job_parse(origin, text, NULL, 0, models, job, &detail) != IS_OK)
        return is_error_set(err, IS_NOT_RESULT, "%s: its recorded job does not parse: %s",
                            origin, detail.message);
    is_job *j = *job;
    free(j->output);
    if (!(j->output = strdup(output)))
        return is_error_set(err, IS_NOMEM, "out of memory");
    snprintf(j->output_origin, sizeof j->output_origin, "the merge output");
    for (char *line = j->text; line && *line;) { /* no piece line */
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, "piece = ", 8) == 0) {
            memmove(line, line + len, strlen(line + len) + 1);
            continue;
        }
        line += len;
    }
    j->piece_index = 0;
    j->piece_count = 1;
    is_grid_piece(&j->grid, 1, 0, &j->piece_box, &j->piece_first, &j->piece_last);
    return IS_OK;
}

typedef struct copier {
    is_results *out, *in;
    size_t variables;
    uint64_t offset;          /* the input's point 0 in the output */
    unsigned char *data, *merged;
    uint8_t *status, *out_status;
    uint64_t tally[IS_POINT_STATUS_COUNT];
} copier;

/* Copies n points from input point `at` on, taking only stored points where the output
 * may already hold some (overlap), which must then agree. */
static is_code copy_block(copier *c, uint64_t at, uint64_t n, int overlap, const char *path,
                          is_error *err)
{
    size_t status_var = c->variables - 1;
    uint64_t to = c->offset + at;
    is_code rc = is_results_read_raw(c->in, status_var, at, n, c->status, err);
    if (rc == IS_OK && overlap)
        rc = is_results_read_raw(c->out, status_var, to, n, c->out_status, err);
    for (size_t v = 0; v < status_var && rc == IS_OK; v++) {
        size_t size = is_results_variable_at(c->out, v)->element_size;
        if (is_results_variable_at(c->in, v)->element_size != size)
            return is_error_set(err, IS_MISMATCH, "%s: %s is stored with another type", path,
                                is_results_variable_at(c->in, v)->name);
        rc = is_results_read_raw(c->in, v, at, n, c->data, err);
        if (rc == IS_OK && overlap) {
            rc = is_results_read_raw(c->out, v, to, n, c->merged, err);
            for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
                if (c->status[i] == IS_POINT_PENDING)
                    continue;
                unsigned char *mine = c->merged + i * size, *theirs = c->data + i * size;
                if (c->out_status[i] != IS_POINT_PENDING &&
                    (memcmp(mine, theirs, size) != 0 || c->out_status[i] != c->status[i]))
                    return is_error_set(err, IS_MISMATCH,
                                        "%s: point %llu of %s differs from another input's",
                                        path, (unsigned long long)(to + i),
                                        is_results_variable_at(c->in, v)->name);
                memcpy(mine, theirs, size);
            }
        }
        if (rc == IS_OK)
            rc = is_results_write_raw(c->out, v, to, n, overlap ? c->merged : c->data, err);
    }
    for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
        int taken = c->status[i] != IS_POINT_PENDING && !(overlap && c->out_status[i]);
        if (taken) {
            c->tally[IS_POINT_PENDING]--;
            c->tally[c->status[i] < IS_POINT_STATUS_COUNT ? c->status[i]
                                                          : IS_POINT_FAILED_INVALID]++;
        }
        if (overlap && !taken)
            c->status[i] = c->out_status[i];
    }
    if (rc == IS_OK)
        rc = is_results_sync(c->out, err);
    if (rc == IS_OK)
        rc = is_results_write_raw(c->out, status_var, to, n, c->status, err);
    return rc;
}

/* Collective: copies input `path` (points first .. first + count - 1 of the grid). */
static is_code copy_input(copier *c, const char *path, const input *in, MPI_Comm comm,
                          is_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    is_code rc = is_collective_agree(is_results_open(path, comm, IS_RESULTS_READ, &c->in, err),
                                     comm, err);
    if (rc != IS_OK)
        return rc;
    c->offset = in->first;
    uint64_t n = in->count, p = (uint64_t)size, k = (uint64_t)rank;
    uint64_t lo = n / p * k + n % p * k / p, hi = n / p * (k + 1) + n % p * (k + 1) / p;
    for (uint64_t at = lo; at < hi && rc == IS_OK; at += MERGE_BLOCK)
        rc = copy_block(c, at, hi - at < MERGE_BLOCK ? hi - at : MERGE_BLOCK, (int)in->overlaps,
                        path, err);
    rc = is_collective_agree(rc, comm, err);
    is_results_close(&c->in, NULL);
    return rc;
}

/* Rank 0 surveys the inputs (their order and overlaps) and every rank parses the same
 * whole job from the text rank 0 read. */
static is_code share_job(const char *output, const char *const *paths, size_t n, input *inputs,
                         is_models *models, MPI_Comm comm, is_job **job, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *text = NULL;
    is_code rc = inputs ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK && rank == 0)
        rc = survey(output, paths, n, inputs, &text, err);
    rc = is_collective_share(rc, 0, comm, err);
    long long length = rank == 0 && text ? (long long)strlen(text) : 0;
    MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm);
    if (rc == IS_OK && rank != 0 && !(text = calloc(1, (size_t)length + 1)))
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK) {
        MPI_Bcast(text, (int)length + 1, MPI_CHAR, 0, comm);
        MPI_Bcast(inputs, (int)(n * sizeof *inputs), MPI_BYTE, 0, comm);
        rc = whole_job(paths[0], text, output, models, job, err);
    }
    free(text);
    return is_collective_agree(rc, comm, err);
}

/* On rank 0: the output may be written (room, the lock, and an existing file only as an
 * earlier merge of these pieces or with --overwrite, which *overwrite then says). */
static is_code claim_output(const is_job *job, const char *output, int *overwrite,
                            is_lock **lock, is_error *err)
{
    is_code rc = is_run_check_output(job, NULL, *overwrite, err);
    if (rc == IS_OK)
        rc = is_results_check_space(job, output, err);
    if (rc == IS_OK)
        rc = is_lock_acquire(output, lock, err);
    if (rc != IS_OK || *overwrite || access(output, F_OK) != 0)
        return rc;
    char fingerprint[32];
    snprintf(fingerprint, sizeof fingerprint, "%016llx", (unsigned long long)job->fingerprint);
    if (!earlier_merge(output, fingerprint))
        return is_error_set(err, IS_EXISTS,
                            "%s exists and is not an earlier merge of these pieces; use "
                            "--overwrite to replace it",
                            output);
    *overwrite = 1;
    return IS_OK;
}

/* The merged file built empty at `partial`, open for writing, with the copy buffers. */
static is_code start_copier(copier *c, const is_job *job, const char *partial, size_t n,
                            MPI_Comm comm, is_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    is_provenance prov;
    is_provenance_collect(&prov, size);
    char line[IS_RESULTS_LOG_LINE];
    snprintf(line, sizeof line, "%s merged from %zu files by impactsweep %s (%s) on %s, %d ranks",
             prov.start_time, n, prov.engine_version, prov.git_commit, prov.host, size);
    if (rank == 0)
        unlink(partial);
    MPI_Barrier(comm);
    is_code rc = is_results_build(job, &prov, partial, line, comm, err);
    if (rc == IS_OK)
        rc = is_collective_agree(is_results_open(partial, comm, IS_RESULTS_WRITE, &c->out, err),
                                 comm, err);
    if (rc == IS_OK) {
        c->variables = is_results_variable_count(c->out);
        c->data = malloc(MERGE_BLOCK * 8);
        c->merged = malloc(MERGE_BLOCK * 8);
        c->status = malloc(MERGE_BLOCK);
        c->out_status = malloc(MERGE_BLOCK);
        rc = c->data && c->merged && c->status && c->out_status
                 ? IS_OK
                 : is_error_set(err, IS_NOMEM, "out of memory");
        c->tally[IS_POINT_PENDING] = rank == 0 ? job->grid.point_count : 0;
    }
    return is_collective_agree(rc, comm, err);
}

/* The points' tally summed on rank 0, logged and stored as the file's state; counts:
 * done (computed or inferred by a refinement), failed, pending. */
static is_code finish_tally(copier *c, uint64_t counts[3], MPI_Comm comm, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    uint64_t tally[IS_POINT_STATUS_COUNT] = {0};
    /* pending counts go negative on ranks other than 0: uint64 sums wrap back */
    MPI_Reduce(c->tally, tally, IS_POINT_STATUS_COUNT, MPI_UINT64_T, MPI_SUM, 0, comm);
    is_code rc = IS_OK;
    if (rank == 0) {
        uint64_t failed = 0;
        for (int s = 0; s < IS_POINT_STATUS_COUNT; s++)
            failed += is_point_failed(s) ? tally[s] : 0;
        counts[0] = tally[IS_POINT_DONE] + tally[IS_POINT_INFERRED];
        counts[1] = failed;
        counts[2] = tally[IS_POINT_PENDING];
        char end[IS_RESULTS_LOG_LINE], now[32];
        is_provenance_now(now, sizeof now);
        snprintf(end, sizeof end, "%s merged: %llu done, %llu failed, %llu pending", now,
                 (unsigned long long)counts[0], (unsigned long long)failed,
                 (unsigned long long)counts[2]);
        rc = is_results_log(c->out, end, err);
        if (rc == IS_OK)
            rc = is_results_set_state(c->out, counts[2] ? "incomplete" : "complete", tally, 1,
                                      err);
    }
    return is_collective_share(rc, 0, comm, err);
}

/* Frees the buffers and closes the merged file (its error kept if rc was IS_OK). */
static is_code end_copier(copier *c, is_code rc, MPI_Comm comm, is_error *err)
{
    free(c->data);
    free(c->merged);
    free(c->status);
    free(c->out_status);
    if (c->out) {
        is_error close_err;
        is_code close_rc = is_collective_agree(is_results_close(&c->out, &close_err), comm,
                                               &close_err);
        if (rc == IS_OK && close_rc != IS_OK) {
            rc = close_rc;
            *err = close_err;
        }
    }
    return rc;
}

is_code is_merge(const char *output, const char *const *paths, size_t n, int overwrite,
                 is_models *models, MPI_Comm comm, uint64_t counts[3], is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (n < 1)
        return is_error_set(err, IS_USAGE, "merge needs at least one input file");
    input *inputs = calloc(n, sizeof *inputs);
    is_job *job = NULL;
    is_code rc = share_job(output, paths, n, inputs, models, comm, &job, err);
    is_lock *lock = NULL;
    if (rc == IS_OK && rank == 0)
        rc = claim_output(job, output, &overwrite, &lock, err);
    rc = is_collective_share(rc, 0, comm, err);
    char *partial = rc == IS_OK ? is_results_partial_path(output) : NULL;
    if (rc == IS_OK && !partial)
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    rc = is_collective_agree(rc, comm, err);
    copier c = {0};
    if (rc == IS_OK)
        rc = start_copier(&c, job, partial, n, comm, err);
    for (size_t i = 0; i < n && rc == IS_OK; i++)
        rc = copy_input(&c, paths[inputs[i].position], &inputs[i], comm, err);
    if (rc == IS_OK)
        rc = finish_tally(&c, counts, comm, err);
    rc = end_copier(&c, rc, comm, err);
    if (rank == 0 && partial) {
        if (rc == IS_OK)
            rc = is_results_publish(partial, output, overwrite, err);
        if (rc != IS_OK)
            unlink(partial);
    }
    rc = is_collective_share(rc, 0, comm, err);
    if (rank == 0)
        is_lock_release(&lock);
    MPI_Barrier(comm); /* as in run.c: nobody exits before the lock is gone */
    free(partial);
    free(inputs);
    is_job_free(&job);
    return rc;
}
