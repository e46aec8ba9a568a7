/* verify.c: checking a result file against its checksums (see verify.h). */
#include "verify.h"
#include "verification.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "crc32c.h"
#include "digest.h"
#include "numtext.h"

/* Points checked at a time by a rank: its scratch is 17 bytes a point (a variable's
 * values, the records' states, the checksums, the statuses), 4.25 MiB. */
#define VERIFY_BLOCK (UINT64_C(1) << 18)
#define NONE UINT64_MAX

static void share(uint64_t n, MPI_Comm comm, uint64_t *lo, uint64_t *hi)
{
    int rank = 0, size = 1;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    uint64_t p = (uint64_t)size, k = (uint64_t)rank;
    *lo = n / p * k + n % p * k / p;
    *hi = n / p * (k + 1) + n % p * (k + 1) / p;
}

typedef struct scratch {
    void *values;
    uint32_t *states, *checks;
    uint8_t *status;
} scratch;

/* What a rank found in its share: its first damaged point (NONE if none) and how many, the
 * points by status (the last: values out of range), its first pending point. */
typedef struct finding {
    uint64_t bad, bad_count;
    uint64_t tally[IS_POINT_STATUS_COUNT + 1];
    uint64_t first_pending;
} finding;

static void count_statuses(const uint8_t *status, uint64_t first, uint64_t n, finding *f)
{
    for (uint64_t i = 0; i < n; i++) {
        uint8_t st = status[i];
        f->tally[st < IS_POINT_STATUS_COUNT ? st : IS_POINT_STATUS_COUNT]++;
        if (st == IS_POINT_PENDING && f->first_pending == NONE)
            f->first_pending = first + i;
        if (st >= IS_POINT_STATUS_COUNT && f->bad == NONE)
            f->bad = first + i;
        f->bad_count += st >= IS_POINT_STATUS_COUNT;
    }
}

/* Points first .. first + n - 1 into f. */
static is_code check_block(is_results *r, const scratch *s, uint64_t first, uint64_t n, finding *f,
                           is_error *err)
{
    size_t status_var = is_results_variable_count(r) - 1;
    is_code rc = is_results_read_raw(r, status_var, first, n, s->status, err);
    if (rc != IS_OK)
        return rc;
    uint64_t pending_before = f->tally[IS_POINT_PENDING];
    count_statuses(s->status, first, n, f);
    if (f->tally[IS_POINT_PENDING] - pending_before == n)
        return IS_OK; /* nothing stored here: no record to read */
    rc = is_results_read_raw(r, is_results_check_variable(r), first, n, s->checks, err);
    is_results_checks_begin(r, first, n, s->states);
    for (size_t v = 0; v <= status_var && rc == IS_OK; v++) {
        const void *raw = s->status;
        if (v < status_var) {
            rc = is_results_read_raw(r, v, first, n, s->values, err);
            raw = s->values;
        } else { /* the reasons' codes come before the status (where the file keeps them) */
            rc = is_results_read_reasons(r, first, n, (uint8_t *)s->values, err);
            if (rc == IS_OK)
                is_results_checks_add_reasons(r, n, (const uint8_t *)s->values, s->states);
        }
        if (rc == IS_OK)
            is_results_checks_add(r, v, n, raw, s->states);
    }
    for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
        if (s->status[i] == IS_POINT_PENDING || s->status[i] >= IS_POINT_STATUS_COUNT ||
            s->states[i] == s->checks[i])
            continue;
        if (f->bad == NONE || first + i < f->bad)
            f->bad = first + i;
        f->bad_count++;
    }
    return rc;
}

/* Rank 0: a file that says it is complete holds exactly what its tally says, and no point
 * pending (a status byte flipped from done to pending is covered by no checksum: this is
 * what finds it). Files in other states are not compared: a run that failed may have
 * counted points it could not write. */
static is_code check_tally(is_results *r, const uint64_t counted[IS_POINT_STATUS_COUNT],
                           uint64_t first_pending, is_error *err)
{
    char state[64] = "";
    uint64_t tally[IS_POINT_STATUS_COUNT];
    is_code rc = is_results_get_state(r, state, sizeof state, tally, NULL, 0, err);
    if (rc != IS_OK || strcmp(state, "complete") != 0)
        return rc;
    if (counted[IS_POINT_PENDING] > 0) {
        char where[1024];
        is_verify_point_coordinates(r, first_pending, where, sizeof where);
        return is_error_set(err, IS_DAMAGED,
                            "%s is damaged: it says it is complete, but %llu of its points "
                            "are pending (the first: point %llu, %s): a status was lost. "
                            "Nothing was written: restore the file, or compute it anew "
                            "(--overwrite)",
                            is_results_path(r), (unsigned long long)counted[IS_POINT_PENDING],
                            (unsigned long long)first_pending, where);
    }
    for (int st = 0; st < IS_POINT_STATUS_COUNT; st++)
        if (counted[st] != tally[st])
            return is_error_set(err, IS_DAMAGED,
                                "%s is damaged: its statuses count %llu points %s, its tally "
                                "(/run/tally) %llu: the status or the tally is damaged",
                                is_results_path(r), (unsigned long long)counted[st],
                                is_point_status_name(st), (unsigned long long)tally[st]);
    return IS_OK;
}

void is_verify_point_coordinates(is_results *r, uint64_t point, char *buf, size_t size)
{
    size_t axes = is_results_axis_count(r), used = 0;
    uint64_t rest = point, index[IS_GRID_MAX_AXES];
    for (size_t k = axes; k-- > 0;) {
        index[k] = rest % is_results_axis_length(r, k);
        rest /= is_results_axis_length(r, k);
    }
    buf[0] = '\0';
    for (size_t k = 0; k < axes && used < size; k++) {
        char value[128] = "?";
        uint64_t extent[2]; /* none for a swept choice (its names; no attribute is read:
                               that would be collective in parallel) */
        is_results_coordinate_extent(r, k, extent);
        double x;
        if (extent[1] == 0)
            snprintf(value, sizeof value, "choice %llu", (unsigned long long)index[k] + 1);
        else if (is_results_coordinates(r, k, index[k], 1, &x, 0, NULL) == IS_OK)
            snprintf(value, sizeof value, "%.9g", x);
        used += (size_t)snprintf(buf + used, size - used, "%s%s = %s", k ? ", " : "",
                                 is_results_axis_name(r, k), value);
    }
    if (!axes)
        snprintf(buf, size, "the only point");
}

/* Which dataset of point `point` is damaged, from its record and its checksum: a single
 * flipped bit shows in the CRC's syndrome, which is different for every bit of a record. */
static void locate(is_results *r, uint64_t point, char *buf, size_t size)
{
    size_t status_var = is_results_variable_count(r) - 1, bytes = is_results_record_size(r);
    unsigned char *record = calloc(1, bytes), *flip = calloc(1, bytes);
    uint64_t index = is_results_first_point(r) + point;
    uint32_t stored = 0;
    int ok = record && flip &&
             is_results_read_raw(r, is_results_check_variable(r), point, 1, &stored, NULL) == IS_OK;
    size_t at = 8;
    for (size_t k = 0; k < 8; k++)
        if (record)
            record[k] = (unsigned char)(index >> (8 * k));
    for (size_t v = 0; ok && v <= status_var; v++) {
        if (v == status_var && is_results_has_reasons(r)) /* its reason's code, then status */
            ok = is_results_read_reasons(r, point, 1, record + at++, NULL) == IS_OK;
        size_t n = is_results_variable_at(r, v)->element_size;
        ok = ok && is_results_read_raw(r, v, point, 1, record + at, NULL) == IS_OK;
        at += n;
    }
    uint8_t status = ok ? record[bytes - 1] : 0;
    uint32_t syndrome = ok ? is_crc32c(0, record, bytes) ^ stored : 0;
    uint32_t zero = ok ? is_crc32c(0, flip, bytes) : 0;
    if (!ok)
        snprintf(buf, size, "(its datasets could not be read again)");
    else if (status >= IS_POINT_STATUS_COUNT)
        snprintf(buf, size, "status holds %u, which is not one of impactsweep's statuses", status);
    else if (stored == 0)
        snprintf(buf, size, "status says %s, but the point has no checksum: its status is damaged",
                 is_point_status_name(status));
    else if ((syndrome & (syndrome - 1)) == 0)
        snprintf(buf, size, "its checksum in %s differs in one bit from its record",
                 is_results_variable_at(r, is_results_check_variable(r))->name);
    else {
        snprintf(buf, size,
                 "its record (outputs, status, %s) differs from its checksum in "
                 "more than one bit",
                 is_results_variable_at(r, is_results_check_variable(r))->name);
        for (size_t bit = 64; bit < 8 * bytes; bit++) {
            flip[bit / 8] = (unsigned char)(1u << (bit % 8));
            uint32_t s = is_crc32c(0, flip, bytes) ^ zero;
            flip[bit / 8] = 0;
            if (s != syndrome)
                continue;
            size_t v = is_results_record_variable(r, bit), start = 64;
            size_t before = v == is_results_reason_variable(r) ? status_var : v;
            for (size_t u = 0; u < before; u++)
                start += 8 * is_results_variable_at(r, u)->element_size;
            if (v == status_var && is_results_has_reasons(r))
                start += 8; /* the reason's code precedes the status */
            const is_results_variable *var = is_results_variable_at(r, v);
            size_t value_bits = 8 * (var->value_size ? var->value_size : var->element_size);
            if (var->length > 1) /* an array output: which of its values */
                snprintf(buf, size,
                         "its value %zu of %s (along %s) differs in one bit from its checksum "
                         "(bit %zu of the stored value)",
                         (bit - start) / value_bits, var->name, var->dimension,
                         (bit - start) % value_bits);
            else
                snprintf(buf, size,
                         "its value of %s differs in one bit from its checksum (bit %zu of the "
                         "stored value)",
                         var->name, bit - start);
            break;
        }
    }
    free(record);
    free(flip);
}

is_code is_verify_damaged_point(is_results *r, uint64_t point, uint64_t count, is_error *err)
{
    char where[1024], what[512];
    is_verify_point_coordinates(r, point, where, sizeof where);
    locate(r, point, what, sizeof what);
    uint64_t most = is_results_block_points(r, VERIFY_BLOCK);
    uint64_t block = point / most * most;
    uint64_t end = block + most < is_results_point_count(r) ? block + most
                                                            : is_results_point_count(r);
    return is_error_set(err, IS_DAMAGED,
                        "%s is damaged: point %llu (%s), in the block of points %llu to %llu: "
                        "%s (%llu damaged point%s in the file). Nothing was written: "
                        "restore the file, or compute it anew (--overwrite)",
                        is_results_path(r), (unsigned long long)point, where,
                        (unsigned long long)block, (unsigned long long)(end - 1), what,
                        (unsigned long long)count, count == 1 ? "" : "s");
}

is_code is_verify_complete_count(is_results *r, uint64_t stored, is_error *err)
{
    char state[64] = "";
    is_code rc = is_results_get_state(r, state, sizeof state, NULL, NULL, 0, err);
    if (rc != IS_OK || strcmp(state, "complete") != 0 || stored == is_results_point_count(r))
        return rc;
    return is_error_set(err, IS_DAMAGED,
                        "%s is damaged: it says it is complete, but only %llu of its %llu "
                        "points are stored: statuses were lost",
                        is_results_path(r), (unsigned long long)stored,
                        (unsigned long long)is_results_point_count(r));
}

is_code is_verify_points(is_results *r, MPI_Comm comm, is_stop *stop, uint64_t *stored,
                         is_error *err)
{
    int rank = 0;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_rank(comm, &rank);
    *stored = 0;
    uint64_t lo, hi;
    finding mine = {NONE, 0, {0}, NONE}, all = mine;
    share(is_results_point_count(r), comm, &lo, &hi);
    uint64_t most = is_results_block_points(r, VERIFY_BLOCK); /* (8 bytes a point) */
    uint64_t block = hi - lo < most ? hi - lo : most;
    block = block ? block : 1;
    scratch s = {malloc(block * 8 * (VERIFY_BLOCK / most + 1)), malloc(block * sizeof *s.states),
                 malloc(block * sizeof *s.checks), malloc(block)};
    is_code rc = s.values && s.states && s.checks && s.status
                     ? IS_OK
                     : is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK && is_results_format(r) < 3)
        rc = is_error_set(err, IS_NOT_RESULT,
                          "%s: written in result-file format %d, which has no checksums",
                          is_results_path(r), is_results_format(r));
    for (uint64_t at = lo; at < hi && rc == IS_OK && !is_stop_poll(stop); at += block)
        rc = check_block(r, &s, at, hi - at < block ? hi - at : block, &mine, err);
    free(s.values);
    free(s.states);
    free(s.checks);
    free(s.status);
    rc = is_collective_agree(rc, comm, err);
    if (rc != IS_OK)
        return rc;
    int stopped = is_stop_poll(stop), any_stopped = stopped; /* counted in part: no tally */
    if (comm != MPI_COMM_NULL) {
        MPI_Allreduce(&stopped, &any_stopped, 1, MPI_INT, MPI_MAX, comm);
        MPI_Allreduce(&mine.bad, &all.bad, 1, MPI_UINT64_T, MPI_MIN, comm);
        MPI_Allreduce(&mine.first_pending, &all.first_pending, 1, MPI_UINT64_T, MPI_MIN, comm);
        MPI_Allreduce(&mine.bad_count, &all.bad_count, 1, MPI_UINT64_T, MPI_SUM, comm);
        MPI_Allreduce(mine.tally, all.tally, IS_POINT_STATUS_COUNT + 1, MPI_UINT64_T, MPI_SUM,
                      comm);
    } else {
        all = mine;
    }
    *stored = is_results_point_count(r) - all.tally[IS_POINT_PENDING];
    if (all.bad != NONE) {
        rc = mine.bad == all.bad ? is_verify_damaged_point(r, all.bad, all.bad_count, err)
                                 : IS_DAMAGED;
        return is_collective_agree(rc, comm, err);
    }
    if (any_stopped)
        return IS_OK;
    rc = rank == 0 ? check_tally(r, all.tally, all.first_pending, err) : IS_OK;
    return is_collective_share(rc, 0, comm, err);
}

/* Axis k's coordinate against the job, values lo .. hi - 1: *bad the first that differs. */
static is_code check_axis(is_results *r, const is_axis *axis, uint64_t offset, size_t k,
                          uint64_t lo, uint64_t hi, is_stop *stop, uint64_t *bad, is_error *err)
{
    uint64_t block = hi - lo < VERIFY_BLOCK ? hi - lo : VERIFY_BLOCK;
    double *values = malloc((block ? block : 1) * sizeof *values);
    is_code rc = values ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    for (uint64_t at = lo; at < hi && rc == IS_OK && *bad == NONE && !is_stop_poll(stop);
         at += block) {
        uint64_t n = hi - at < block ? hi - at : block;
        rc = is_results_coordinates(r, k, at, n, values, 0, err);
        for (uint64_t i = 0; rc == IS_OK && i < n; i++) {
            double want = is_axis_value(axis, (size_t)(offset + at + i));
            if (memcmp(&want, &values[i], sizeof want) != 0) {
                *bad = at + i;
                break;
            }
        }
    }
    free(values);
    return rc;
}

/* A swept choice's names against the job's (rank 0). */
static is_code check_choice_axis(is_results *r, const is_job *job, size_t k, is_error *err)
{
    const is_axis *axis = &job->grid.axes[k];
    const is_param *param = &job->model->params[axis->param];
    char stored[2048], wanted[2048] = "";
    is_code rc = is_results_coordinate_names(r, k, stored, sizeof stored, err);
    size_t used = 0;
    for (uint64_t i = 0; i < job->piece_box.count[k] && used < sizeof wanted; i++)
        used += (size_t)snprintf(
            wanted + used, sizeof wanted - used, "%s%s", i ? ", " : "",
            param->choices[(int)is_axis_value(axis, (size_t)(job->piece_box.start[k] + i))]);
    if (rc == IS_OK && strcmp(stored, wanted) != 0)
        rc = is_error_set(err, IS_DAMAGED,
                          "%s is damaged: its coordinate %s holds %s; the job gives %s",
                          is_results_path(r), param->name, stored, wanted);
    return rc;
}

is_code is_verify_coordinates(is_results *r, const is_job *job, MPI_Comm comm, is_stop *stop,
                              is_error *err)
{
    int rank = 0;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_rank(comm, &rank);
    is_code rc = IS_OK;
    for (size_t k = 0; k < job->grid.axis_count && rc == IS_OK; k++) {
        const is_axis *axis = &job->grid.axes[k];
        if (job->model->params[axis->param].type == IS_PARAM_CHOICE) {
            rc = rank == 0 ? check_choice_axis(r, job, k, err) : IS_OK;
            rc = is_collective_share(rc, 0, comm, err);
            continue;
        }
        uint64_t lo, hi, bad = NONE, first = NONE;
        share(job->piece_box.count[k], comm, &lo, &hi);
        rc = check_axis(r, axis, job->piece_box.start[k], k, lo, hi, stop, &bad, err);
        rc = is_collective_agree(rc, comm, err);
        first = bad;
        if (rc == IS_OK && comm != MPI_COMM_NULL)
            MPI_Allreduce(&bad, &first, 1, MPI_UINT64_T, MPI_MIN, comm);
        if (rc != IS_OK || first == NONE)
            continue;
        if (bad == first) {
            double stored = 0, want = is_axis_value(axis, (size_t)(job->piece_box.start[k] + bad));
            is_results_coordinates(r, k, bad, 1, &stored, 0, NULL);
            rc = is_error_set(err, IS_DAMAGED,
                              "%s is damaged: value %llu of its coordinate %s is %s; the "
                              "job gives %s. Nothing was written: restore the file, or "
                              "compute it anew (--overwrite)",
                              is_results_path(r), (unsigned long long)bad + 1,
                              is_results_axis_name(r, k), IS_NUM(stored), IS_NUM(want));
        } else {
            rc = IS_DAMAGED;
        }
        rc = is_collective_agree(rc, comm, err);
    }
    return rc;
}

is_code is_verify_file(is_results *r, const is_job *job, MPI_Comm comm, is_stop *stop,
                       uint64_t *stored, is_error *err)
{
    *stored = 0;
    is_code rc = is_digest_check(r, comm, stop, err);
    if (rc == IS_OK && job)
        rc = is_verify_coordinates(r, job, comm, stop, err);
    if (rc == IS_OK)
        rc = is_verify_points(r, comm, stop, stored, err);
    if (rc == IS_OK) /* the self-verification's records (verification.h) */
        rc = is_verification_check_file(r, comm, err);
    return rc;
}
