/* results_run.c: what an open result file keeps in /run besides the checksums: the run
 * state (state, tally, end time), the run log, and the failed points' reasons (a code per
 * point and a table of distinct texts). The layout is in results.h; the datasets are
 * opened by results.c, created by results_create.c. */
#include "results.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5attr.h"
#include "results_layout.h"

/* --- the run state -------------------------------------------------------------------- */

/* Element `index` of a 1-D /run dataset (or the scalar one, index 0). */
static is_code run_transfer(is_results *r, int which, hsize_t index, hid_t mem_type, void *buf,
                            int writing, is_error *err)
{
    return is_layout_range_transfer(r, is_layout_run(r, which), is_layout_run_names[which], index, 1, mem_type,
                          buf, writing, err);
}

/* Row `index` of a 2-D character array ds (the log, the reasons: netCDF's char type, which
 * netCDF-C reads, where it crashes on arrays of fixed-length strings), `size` bytes. */
static is_code char_rows(is_results *r, hid_t ds, const char *name, hsize_t index, char *text,
                         size_t size, int writing, is_error *err)
{
    hid_t space = H5Dget_space(ds), type = H5Tcopy(H5T_C_S1);
    hsize_t start[2] = {index, 0}, count[2] = {1, size};
    hid_t mem = H5Screate_simple(2, count, NULL);
    herr_t rc = space < 0 || mem < 0 || type < 0 ? -1 : 0;
    if (rc == 0)
        rc = H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    if (rc >= 0)
        rc = writing ? H5Dwrite(ds, type, mem, space, H5P_DEFAULT, text)
                     : H5Dread(ds, type, mem, space, H5P_DEFAULT, text);
    is_code code = rc < 0 ? is_layout_io_fail(err, is_results_path(r),
                                              writing ? "writing" : "reading", name,
                                              is_layout_building(r))
                          : IS_OK;
    if (mem >= 0)
        H5Sclose(mem);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    return code;
}

static is_code char_row_transfer(is_results *r, int which, hsize_t index, char *text,
                                 size_t size, int writing, is_error *err)
{
    return char_rows(r, is_layout_run(r, which), is_layout_run_names[which], index, text, size,
                     writing, err);
}

/* A fixed-length string of `size` bytes (NUL-padded) in a scratch buffer; a line of the log
 * (a row of characters; files of format 2 made before it held fixed-length strings). */
static is_code text_transfer(is_results *r, int which, hsize_t index, char *text, size_t size,
                             int writing, is_error *err)
{
    if (which == IS_LAYOUT_RUN_LOG) {
        hid_t space = H5Dget_space(is_layout_run(r, which));
        int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
        if (space >= 0)
            H5Sclose(space);
        if (rank == 2)
            return char_row_transfer(r, which, index, text, size, writing, err);
    }
    hid_t type = is_layout_text_type(size);
    is_code rc = run_transfer(r, which, index, type, text, writing, err);
    H5Tclose(type);
    return rc;
}

static is_code write_text(is_results *r, int which, hsize_t index, const char *value,
                          size_t size, is_error *err)
{
    char *buf = calloc(1, size);
    if (!buf)
        return is_error_set(err, IS_NOMEM, "out of memory");
    snprintf(buf, size, "%s", value);
    is_code rc = text_transfer(r, which, index, buf, size, 1, err);
    free(buf);
    return rc;
}

static is_code read_text(is_results *r, int which, hsize_t index, char *out, size_t out_size,
                         size_t size, is_error *err)
{
    char *buf = calloc(1, size + 1);
    if (!buf)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = text_transfer(r, which, index, buf, size, 0, err);
    snprintf(out, out_size, "%s", rc == IS_OK ? buf : "");
    free(buf);
    return rc;
}

is_code is_results_log(is_results *r, const char *line, is_error *err)
{
    uint64_t count = 0;
    is_code rc = run_transfer(r, IS_LAYOUT_RUN_LOG_COUNT, 0, H5T_NATIVE_UINT64, &count, 0, err);
    if (rc != IS_OK)
        return rc;
    char text[IS_RESULTS_LOG_LINE];
    if (count >= IS_RESULTS_LOG_CAPACITY)
        snprintf(text, sizeof text, "(log full, %llu lines not kept) %s",
                 (unsigned long long)(count - IS_RESULTS_LOG_CAPACITY + 1), line);
    else
        snprintf(text, sizeof text, "%s", line);
    hsize_t slot = count < IS_RESULTS_LOG_CAPACITY ? count : IS_RESULTS_LOG_CAPACITY - 1;
    /* the line first, then the count that makes it part of the log */
    rc = write_text(r, IS_LAYOUT_RUN_LOG, slot, text, IS_RESULTS_LOG_LINE, err);
    count++;
    if (rc == IS_OK)
        rc = run_transfer(r, IS_LAYOUT_RUN_LOG_COUNT, 0, H5T_NATIVE_UINT64, &count, 1, err);
    return rc;
}

is_code is_results_set_state(is_results *r, const char *state,
                             const uint64_t tally[IS_POINT_STATUS_COUNT], int ended,
                             is_error *err)
{
    char now[32] = "";
    if (ended)
        is_provenance_now(now, sizeof now);
    is_code rc = IS_OK;
    for (int s = 0; s < is_layout_tally_length(r) && rc == IS_OK && tally; s++) {
        uint64_t n = tally[s];
        rc = run_transfer(r, IS_LAYOUT_RUN_TALLY, (hsize_t)s, H5T_NATIVE_UINT64, &n, 1, err);
    }
    if (rc == IS_OK)
        rc = write_text(r, IS_LAYOUT_RUN_END_TIME, 0, now, IS_LAYOUT_STATE_TEXT, err);
    if (rc == IS_OK)
        rc = write_text(r, IS_LAYOUT_RUN_STATE, 0, state, IS_LAYOUT_STATE_TEXT, err);
    return rc;
}

is_code is_results_get_state(is_results *r, char *state, size_t state_size,
                             uint64_t tally[IS_POINT_STATUS_COUNT], char *end_time,
                             size_t end_size, is_error *err)
{
    is_code rc = read_text(r, IS_LAYOUT_RUN_STATE, 0, state, state_size, IS_LAYOUT_STATE_TEXT,
                           err);
    if (rc == IS_OK && end_time)
        rc = read_text(r, IS_LAYOUT_RUN_END_TIME, 0, end_time, end_size, IS_LAYOUT_STATE_TEXT,
                       err);
    for (int s = 0; s < IS_POINT_STATUS_COUNT && tally; s++)
        tally[s] = 0;
    for (int s = 0; s < is_layout_tally_length(r) && rc == IS_OK && tally; s++)
        rc = run_transfer(r, IS_LAYOUT_RUN_TALLY, (hsize_t)s, H5T_NATIVE_UINT64, &tally[s], 0,
                          err);
    return rc;
}

is_code is_results_read_log(is_results *r, void (*line)(const char *text, void *user),
                            void *user, is_error *err)
{
    uint64_t count = 0;
    is_code rc = run_transfer(r, IS_LAYOUT_RUN_LOG_COUNT, 0, H5T_NATIVE_UINT64, &count, 0, err);
    uint64_t kept = count < IS_RESULTS_LOG_CAPACITY ? count : IS_RESULTS_LOG_CAPACITY;
    for (uint64_t i = 0; rc == IS_OK && i < kept; i++) {
        char text[IS_RESULTS_LOG_LINE + 1];
        rc = read_text(r, IS_LAYOUT_RUN_LOG, i, text, sizeof text, IS_RESULTS_LOG_LINE, err);
        if (rc == IS_OK)
            line(text, user);
    }
    return rc;
}

/* --- the failed points' reasons ------------------------------------------------------ */

int is_results_has_reasons(const is_results *r)
{
    return is_layout_reasons(r, 0) >= 0 && is_layout_reasons(r, 1) >= 0;
}

static is_code reason_codes(is_results *r, uint64_t first, uint64_t count, uint8_t *codes,
                            int writing, is_error *err)
{
    if (count == 0)
        return IS_OK;
    if (writing && !is_layout_writable(r))
        return is_error_set(err, IS_INTERNAL, "%s: opened read-only", is_results_path(r));
    if (first + count > is_results_point_count(r))
        return is_error_set(err, IS_INTERNAL, "%s: reasons of points past its end",
                            is_results_path(r));
    return is_layout_range_transfer(r, is_layout_reasons(r, 0), IS_LAYOUT_REASON_NAME, first,
                                    count, H5T_NATIVE_UINT8, codes, writing, err);
}

is_code is_results_read_reasons(is_results *r, uint64_t first, uint64_t count, uint8_t *codes,
                                is_error *err)
{
    if (!is_results_has_reasons(r)) { /* a file made before them: no reason known */
        if (count)
            memset(codes, 0, count);
        return IS_OK;
    }
    return reason_codes(r, first, count, codes, 0, err);
}

is_code is_results_write_reasons(is_results *r, uint64_t first, uint64_t count,
                                 const uint8_t *codes, is_error *err)
{
    if (!is_results_has_reasons(r))
        return IS_OK; /* (a file made before them keeps its statuses alone) */
    return reason_codes(r, first, count, (uint8_t *)codes, 1, err);
}

is_code is_results_reason_text(is_results *r, unsigned code, char text[IS_RESULTS_REASON_TEXT],
                               int writing, is_error *err)
{
    if (code == 0 || code > IS_RESULTS_REASON_CAPACITY)
        return is_error_set(err, IS_INTERNAL, "reason code %u out of range", code);
    if (!is_results_has_reasons(r)) {
        if (!writing)
            text[0] = '\0';
        return IS_OK;
    }
    char row[IS_RESULTS_REASON_TEXT + 1] = "";
    if (writing) {
        if (!is_layout_writable(r))
            return is_error_set(err, IS_INTERNAL, "%s: opened read-only", is_results_path(r));
        snprintf(row, sizeof row, "%s", text);
        memset(row + strlen(row), 0, sizeof row - strlen(row));
    }
    is_code rc = char_rows(r, is_layout_reasons(r, 1), IS_LAYOUT_REASONS_NAME, code - 1, row,
                           IS_RESULTS_REASON_TEXT, writing, err);
    if (!writing) {
        row[IS_RESULTS_REASON_TEXT] = '\0';
        snprintf(text, IS_RESULTS_REASON_TEXT, "%s", rc == IS_OK ? row : "");
    }
    return rc;
}
