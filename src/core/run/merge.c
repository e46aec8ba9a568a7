/* merge.c: merging job-array pieces (see merge.h).
 *
 * Rank 0 checks the inputs (one job, each piece and each file once, none of them the
 * output) and takes the output's lock; all ranks build the output under its .partial name;
 * then, input after input (ordered by their place in the grid), the ranks check its fixed
 * bytes, share its points and copy them in blocks, checking each stored point against its
 * checksum as they read it: whole blocks where the input overlaps no earlier one (the usual
 * case: pieces tile the grid), point by point with a comparison where it does. An output
 * that exists is replaced only by a merge that holds every point it holds (merge_guard.c
 * compares them), so that a merge only ever makes a result better. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collective.h"
#include "digest.h"
#include "engine.h"
#include "failures.h"
#include "job.h"
#include "lock.h"
#include "merge_guard.h"
#include "provenance.h"
#include "reason_table.h"
#include "results.h"
#include "run.h"
#include "stop.h"
#include "verify.h"
#include "verify_run.h"

/* Points copied at a time by a rank. */
#define MERGE_BLOCK (UINT64_C(1) << 18)

typedef struct input {
    uint64_t first, count; /* its points in the grid */
    uint64_t overlaps;     /* 1: it shares points with an input merged before it */
    uint64_t position;     /* its place in the list given */
    uint64_t piece[2];     /* its piece I/N */
    uint64_t stored;       /* rank 0, after the copy: its points stored (not pending) */
} input;

static int by_first(const void *a, const void *b)
{
    const input *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first ? 1 : (x->position > y->position) - (x->position < y->position);
}

/* Rank 0: input i is neither the output nor an input given before it (the same file,
 * under any name, or the same piece: the same box of the grid). */
static is_code check_distinct(const char *output, const char *const *paths, const input *inputs,
                              size_t i, is_error *err)
{
    struct stat st, other;
    if (stat(paths[i], &st) != 0)
        return IS_OK; /* opening it says why */
    if (stat(output, &other) == 0 && st.st_dev == other.st_dev && st.st_ino == other.st_ino)
        return is_error_set(err, IS_USAGE,
                            "%s is both the output and an input; merge into a new file",
                            paths[i]);
    for (size_t j = 0; j < i; j++) {
        if (stat(paths[j], &other) == 0 && st.st_dev == other.st_dev &&
            st.st_ino == other.st_ino)
            return is_error_set(err, IS_USAGE,
                                "%s is given twice (as input %zu and input %zu, %s): give each "
                                "piece once",
                                paths[i], j + 1, i + 1, paths[j]);
        /* the same piece: the same box of the grid (pieces of equal cost with the same
         * I/N from two cuts are different boxes, and may be merged, overlapping) */
        if (inputs[j].first == inputs[i].first && inputs[j].count == inputs[i].count)
            return is_error_set(err, IS_USAGE,
                                "%s and %s are both piece %llu/%llu of the grid (points %llu "
                                "to %llu): give each piece once (a piece computed twice is one "
                                "result, not two)",
                                paths[j], paths[i], (unsigned long long)inputs[i].piece[0],
                                (unsigned long long)inputs[i].piece[1],
                                (unsigned long long)inputs[i].first,
                                (unsigned long long)(inputs[i].first + inputs[i].count - 1));
    }
    return IS_OK;
}

/* Rank 0: reads input i (its box, piece, job) and checks it against the first. */
static is_code survey_one(const char *const *paths, input *inputs, size_t i, char *fingerprint,
                          char **text, is_error *err)
{
    is_results *r = NULL;
    is_code rc = is_results_open(paths[i], MPI_COMM_NULL, IS_RESULTS_READ, &r, err);
    if (rc != IS_OK)
        return rc;
    if (is_results_format(r) >= IS_RESULTS_FORMAT_CHECKSUMS) /* before trusting an attribute */
        rc = is_digest_check_metadata(r, err);
    if (rc != IS_OK) {
        is_results_close(&r, NULL);
        return rc;
    }
    char other[64], piece[96]; /* (I/N, or I/N:FIRST-LAST) */
    is_results_attribute(r, "job_fingerprint", other, sizeof other);
    is_results_attribute(r, "piece", piece, sizeof piece);
    unsigned long long index = 0, count = 0;
    inputs[i] = (input){is_results_first_point(r), is_results_point_count(r), 0, i, {0, 0}, 0};
    if (sscanf(piece, "%llu/%llu", &index, &count) == 2)
        inputs[i].piece[0] = index, inputs[i].piece[1] = count;
    if (is_results_format(r) < IS_RESULTS_FORMAT_CHECKSUMS)
        rc = is_error_set(err, IS_NOT_RESULT,
                          "%s: written in result-file format %d, which has no checksums: "
                          "merge it with the version that made it",
                          paths[i], is_results_format(r));
    else if (i == 0) {
        snprintf(fingerprint, 64, "%s", other);
        *text = is_results_job_text(r);
        if (!*text)
            rc = is_error_set(err, IS_NOT_RESULT, "%s: records no job", paths[i]);
    } else if (strcmp(other, fingerprint) != 0) {
        rc = is_error_set(err, IS_MISMATCH,
                          "%s comes from another job than %s (fingerprint %s, not %s)",
                          paths[i], paths[0], other, fingerprint);
    }
    is_results_close(&r, NULL);
    return rc;
}

/* Rank 0: reads and checks the inputs; *text is the first one's job (caller frees). */
static is_code survey(const char *output, const char *const *paths, size_t n, input *inputs,
                      char **text, is_error *err)
{
    char fingerprint[64] = "";
    is_code rc = IS_OK;
    for (size_t i = 0; i < n && rc == IS_OK; i++) {
        rc = survey_one(paths, inputs, i, fingerprint, text, err);
        if (rc == IS_OK)
            rc = check_distinct(output, paths, inputs, i, err);
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
    const char *in_path;
    size_t variables;         /* outputs and status; the checksums are number `variables` */
    uint64_t offset;          /* the input's point 0 in the output */
    unsigned char *data, *merged;
    uint8_t *status, *out_status;
    uint32_t *states, *checks, *out_checks;
    uint64_t tally[IS_POINT_STATUS_COUNT];
    uint64_t stored;          /* of the input being copied, on this rank */
    is_stop *stop;
    is_reason_table reasons;  /* rank 0: the merged file's reasons */
    uint8_t map[256];         /* the input's reason codes -> the merged file's */
    uint8_t *reason, *out_reason, *mapped;
    uint32_t *out_states;     /* the taken points' checksums in the merged file (their
                                 reasons' codes are the merged file's) */
} copier;

/* The input's block of n points from `at` (status and checksums in c->status, c->checks)
 * checked against its checksums: its records are read variable by variable, c->data the
 * last. *damaged: the first damaged point's message is in err. */
static is_code check_input_block(copier *c, uint64_t at, uint64_t n, is_error *err)
{
    for (uint64_t i = 0; i < n; i++) {
        int pending = c->status[i] == IS_POINT_PENDING;
        if (c->status[i] >= IS_POINT_STATUS_COUNT || (!pending && c->states[i] != c->checks[i]))
            return is_verify_damaged_point(c->in, at + i, 1, err);
        c->stored += !pending;
    }
    return IS_OK;
}

/* Variable v of an overlapping block: the input's stored points over what the output has,
 * which must agree where both hold a point. */
static is_code overlay(copier *c, size_t v, uint64_t at, uint64_t n, is_error *err)
{
    size_t size = is_results_variable_at(c->out, v)->element_size;
    is_code rc = is_results_read_raw(c->out, v, c->offset + at, n, c->merged, err);
    for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
        if (c->status[i] == IS_POINT_PENDING)
            continue;
        unsigned char *mine = c->merged + i * size, *theirs = c->data + i * size;
        if (c->out_status[i] != IS_POINT_PENDING &&
            (memcmp(mine, theirs, size) != 0 || c->out_status[i] != c->status[i]))
            return is_error_set(err, IS_MISMATCH,
                                "%s: point %llu of %s differs from another input's", c->in_path,
                                (unsigned long long)(c->offset + at + i),
                                is_results_variable_at(c->in, v)->name);
        memcpy(mine, theirs, size);
    }
    return rc;
}

/* Copies n points from input point `at` on, taking only stored points where the output
 * may already hold some (overlap), which must then agree; every stored point read is
 * checked against its checksum first. */
static is_code copy_block(copier *c, uint64_t at, uint64_t n, int overlap, is_error *err)
{
    size_t status_var = c->variables - 1, check_var = c->variables;
    uint64_t to = c->offset + at;
    is_code rc = is_results_read_raw(c->in, status_var, at, n, c->status, err);
    if (rc == IS_OK)
        rc = is_results_read_raw(c->in, check_var, at, n, c->checks, err);
    if (rc == IS_OK && overlap)
        rc = is_results_read_raw(c->out, status_var, to, n, c->out_status, err);
    is_results_checks_begin(c->in, at, n, c->states);
    for (size_t v = 0; v < status_var && rc == IS_OK; v++) {
        if (is_results_variable_at(c->in, v)->element_size !=
            is_results_variable_at(c->out, v)->element_size)
            return is_error_set(err, IS_MISMATCH, "%s: %s is stored with another type",
                                c->in_path, is_results_variable_at(c->in, v)->name);
        rc = is_results_read_raw(c->in, v, at, n, c->data, err);
        if (rc == IS_OK)
            is_results_checks_add(c->in, v, n, c->data, c->states);
        if (rc == IS_OK && overlap)
            rc = overlay(c, v, at, n, err);
        if (rc == IS_OK)
            rc = is_results_write_raw(c->out, v, to, n, overlap ? c->merged : c->data, err);
    }
    if (rc == IS_OK) /* the records end with the reason's code and the status */
        rc = is_results_read_reasons(c->in, at, n, c->reason, err);
    if (rc == IS_OK) {
        memcpy(c->out_states, c->states, n * sizeof *c->states);
        for (uint64_t i = 0; i < n; i++)
            c->mapped[i] = c->map[c->reason[i]];
        is_results_checks_add_reasons(c->in, n, c->reason, c->states);
        is_results_checks_add_reasons(c->out, n, c->mapped, c->out_states);
        is_results_checks_add(c->in, status_var, n, c->status, c->states);
        is_results_checks_add(c->out, status_var, n, c->status, c->out_states);
        rc = check_input_block(c, at, n, err);
    }
    if (rc == IS_OK && overlap)
        rc = is_results_read_raw(c->out, check_var, to, n, c->out_checks, err);
    if (rc == IS_OK && overlap)
        rc = is_results_read_reasons(c->out, to, n, c->out_reason, err);
    for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
        int taken = c->status[i] != IS_POINT_PENDING && !(overlap && c->out_status[i]);
        c->reason[i] = overlap && !taken ? c->out_reason[i] : c->mapped[i];
        if (taken) /* (its record checked above: the same record, its code renumbered) */
            c->checks[i] = c->out_states[i];
        if (taken) {
            c->tally[IS_POINT_PENDING]--;
            c->tally[c->status[i]]++;
        }
        if (overlap && !taken) { /* the output keeps its own point, checksum and all */
            c->status[i] = c->out_status[i];
            c->checks[i] = c->out_checks[i];
        }
    }
    if (rc == IS_OK) /* the checksums and reasons go with the outputs, before the flush */
        rc = is_results_write_raw(c->out, check_var, to, n, c->checks, err);
    if (rc == IS_OK)
        rc = is_results_write_reasons(c->out, to, n, c->reason, err);
    if (rc == IS_OK)
        rc = is_results_sync(c->out, err);
    if (rc == IS_OK)
        rc = is_results_write_raw(c->out, status_var, to, n, c->status, err);
    return rc;
}

static int rank_of(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

/* Collective: c->map, the input's reason codes as the merged file's (rank 0 interns the
 * input's texts into it). */
static is_code map_reasons(copier *c, MPI_Comm comm, is_error *err)
{
    memset(c->map, 0, sizeof c->map);
    is_code rc = IS_OK;
    if (rank_of(comm) == 0) {
        is_reason_table in;
        rc = is_reason_table_init(&in, c->in, 0, err);
        for (unsigned code = 1; rc == IS_OK && code <= IS_RESULTS_REASON_CAPACITY; code++) {
            const char *text = code == IS_RESULTS_REASON_OTHER && !in.other_written
                                   ? NULL /* (no point of it has "other") */
                                   : is_reason_table_text(&in, code);
            unsigned to = 0;
            if (text)
                rc = is_reason_table_intern(&c->reasons, text, &to, err);
            c->map[code] = (uint8_t)to;
        }
        if (in.texts)
            is_reason_table_free(&in);
    }
    rc = is_collective_share(rc, 0, comm, err);
    if (rc == IS_OK)
        MPI_Bcast(c->map, (int)sizeof c->map, MPI_BYTE, 0, comm);
    return rc;
}

/* Collective: copies input `path` (points first .. first + count - 1 of the grid), after
 * checking its fixed bytes; in->stored (rank 0) the points it holds. */
static is_code copy_input(copier *c, const char *path, input *in, MPI_Comm comm, is_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    is_code rc = is_collective_agree(is_results_open(path, comm, IS_RESULTS_READ, &c->in, err),
                                     comm, err);
    if (rc != IS_OK)
        return rc;
    c->in_path = path;
    c->offset = in->first;
    c->stored = 0;
    rc = is_digest_check(c->in, comm, c->stop, err);
    if (rc == IS_OK)
        rc = map_reasons(c, comm, err);
    uint64_t n = in->count, p = (uint64_t)size, k = (uint64_t)rank;
    uint64_t lo = n / p * k + n % p * k / p, hi = n / p * (k + 1) + n % p * (k + 1) / p;
    uint64_t most = is_results_block_points(c->out, MERGE_BLOCK); /* (8 bytes a point) */
    for (uint64_t at = lo; at < hi && rc == IS_OK && !is_stop_poll(c->stop); at += most)
        rc = copy_block(c, at, hi - at < most ? hi - at : most, (int)in->overlaps,
                        err);
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK) /* its self-verification records */
        rc = is_verify_run_merge(c->in, c->out, comm, err);
    MPI_Reduce(&c->stored, &in->stored, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
    if (rc == IS_OK && rank == 0 && !is_stop_poll(c->stop)) /* a done status lost */
        rc = is_verify_complete_count(c->in, in->stored, err);
    rc = is_collective_share(rc, 0, comm, err);
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
        rc = is_collective_agree(is_results_open(partial, comm, IS_RESULTS_BUILD, &c->out, err),
                                 comm, err);
    if (rc == IS_OK) {
        c->variables = is_results_variable_count(c->out);
        c->data = malloc(MERGE_BLOCK * 8);
        c->merged = malloc(MERGE_BLOCK * 8);
        c->status = malloc(MERGE_BLOCK);
        c->out_status = malloc(MERGE_BLOCK);
        c->states = malloc(MERGE_BLOCK * sizeof *c->states);
        c->checks = malloc(MERGE_BLOCK * sizeof *c->checks);
        c->out_checks = malloc(MERGE_BLOCK * sizeof *c->out_checks);
        c->reason = malloc(MERGE_BLOCK);
        c->out_reason = malloc(MERGE_BLOCK);
        c->mapped = malloc(MERGE_BLOCK);
        c->out_states = malloc(MERGE_BLOCK * sizeof *c->out_states);
        rc = c->data && c->merged && c->status && c->out_status && c->states && c->checks &&
                     c->out_checks && c->reason && c->out_reason && c->mapped && c->out_states
                 ? IS_OK
                 : is_error_set(err, IS_NOMEM, "out of memory");
        if (rc == IS_OK) /* rank 0 keeps the merged file's reasons */
            rc = is_reason_table_init(&c->reasons, rank == 0 ? c->out : NULL, rank == 0, err);
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
    free(c->states);
    free(c->checks);
    free(c->out_checks);
    free(c->reason);
    free(c->out_reason);
    free(c->mapped);
    free(c->out_states);
    if (c->reasons.texts)
        is_reason_table_free(&c->reasons);
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

/* Rank 0, for a merge that leaves points pending: which pieces are missing or incomplete,
 * in plain words. */
static void describe_partial(const char *const *paths, const input *inputs, size_t n,
                             const uint64_t counts[3], char *report, size_t size)
{
    size_t used = (size_t)snprintf(report, size,
                                   "%llu of the grid's %llu points have no result",
                                   (unsigned long long)counts[2],
                                   (unsigned long long)(counts[0] + counts[1] + counts[2]));
    uint64_t pieces = inputs[0].piece[1];
    for (size_t i = 1; i < n; i++)
        pieces = inputs[i].piece[1] == pieces ? pieces : 0;
    size_t missing = 0;
    for (uint64_t p = 0; pieces > 1 && pieces <= 100000 && p < pieces && used < size; p++) {
        int given = 0;
        for (size_t i = 0; i < n; i++)
            given |= inputs[i].piece[0] == p;
        if (!given && missing++ < 16)
            used += (size_t)snprintf(report + used, size - used, "%s%llu/%llu",
                                     missing == 1 ? ": missing piece(s) " : ", ",
                                     (unsigned long long)p, (unsigned long long)pieces);
    }
    if (missing > 16 && used < size)
        used += (size_t)snprintf(report + used, size - used, " and %zu more", missing - 16);
    for (size_t i = 0; i < n && used < size; i++)
        if (inputs[i].stored < inputs[i].count)
            used += (size_t)snprintf(report + used, size - used,
                                     "; %s (piece %llu/%llu) holds %llu of its %llu points",
                                     paths[inputs[i].position],
                                     (unsigned long long)inputs[i].piece[0],
                                     (unsigned long long)inputs[i].piece[1],
                                     (unsigned long long)inputs[i].stored,
                                     (unsigned long long)inputs[i].count);
}


/* Collective: the merge into `partial` (built, filled from every input, and compared
 * with the output it replaces, if any); the stop watch covers it all. */
static is_code build_merge(const is_job *job, const char *const *paths, input *inputs, size_t n,
                           const char *partial, const char *output, int replacing,
                           MPI_Comm comm, uint64_t counts[3], is_error *err)
{
    copier c = {0};
    is_code rc = is_stop_begin(comm, &c.stop, err);
    if (rc == IS_OK)
        rc = start_copier(&c, job, partial, n, comm, err);
    for (size_t i = 0; i < n && rc == IS_OK; i++)
        rc = copy_input(&c, paths[inputs[i].position], &inputs[i], comm, err);
    if (rc == IS_OK && replacing)
        rc = is_merge_guard(output, c.out, comm, c.stop, err);
    if (rc == IS_OK && rank_of(comm) == 0) /* the pieces' reasons for their failed points */
        rc = is_failures_carry(c.out, paths, n, err);
    rc = is_collective_share(rc, 0, comm, err);
    if (rc == IS_OK)
        rc = finish_tally(&c, counts, comm, err);
    rc = end_copier(&c, rc, comm, err);
    return is_stop_end(&c.stop, rc, "the merge (nothing was written to the output)", err);
}

is_code is_merge(const char *output, const char *const *paths, size_t n, int overwrite,
                 is_models *models, MPI_Comm comm, uint64_t counts[3], char *report,
                 size_t report_size, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    *report = '\0';
    if (n < 1)
        return is_error_set(err, IS_USAGE, "merge needs at least one input file");
    input *inputs = calloc(n, sizeof *inputs);
    is_job *job = NULL;
    is_code rc = share_job(output, paths, n, inputs, models, comm, &job, err);
    is_lock *lock = NULL;
    int replacing = 0;
    if (rc == IS_OK && rank == 0)
        rc = is_merge_claim_output(job, output, overwrite, &replacing, &lock, err);
    rc = is_collective_share(rc, 0, comm, err);
    MPI_Bcast(&replacing, 1, MPI_INT, 0, comm);
    char *partial = rc == IS_OK ? is_results_partial_path(output) : NULL;
    if (rc == IS_OK && !partial)
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK)
        rc = build_merge(job, paths, inputs, n, partial, output, replacing, comm, counts, err);
    if (rank == 0 && partial) {
        if (rc == IS_OK) /* the new file is locked before it has its name */
            rc = is_lock_adopt(lock, partial, err);
        if (rc == IS_OK)
            rc = is_results_publish(partial, output, replacing, err);
        if (rc != IS_OK)
            unlink(partial);
        if (rc == IS_OK && counts[2] > 0)
            describe_partial(paths, inputs, n, counts, report, report_size);
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
