/* results_layout.c: the layout details shared by results.c and results_create.c (see
 * results_layout.h). */
#include "results_layout.h"

#include <errno.h>
#include <hdf5_hl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "h5attr.h"
#include "results.h"

const char *const is_layout_run_names[IS_LAYOUT_RUN_COUNT] = {
    "/run/state", "/run/end_time", "/run/tally", "/run/log", "/run/log_count", "/run/digest"};

hid_t is_layout_text_type(size_t size)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, size);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    H5Tset_cset(type, H5T_CSET_UTF8);
    return type;
}

MPI_Info is_layout_mpi_hints(void)
{
    const char *text = getenv("IMPACTSWEEP_MPIIO_HINTS");
    if (!text || !*text)
        return MPI_INFO_NULL;
    MPI_Info info;
    if (MPI_Info_create(&info) != MPI_SUCCESS)
        return MPI_INFO_NULL;
    char pair[512];
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        snprintf(pair, sizeof pair, "%.*s", (int)len, p);
        char *eq = strchr(pair, '=');
        if (eq && eq != pair) {
            *eq = '\0';
            MPI_Info_set(info, pair, eq + 1);
        }
        p += len + (p[len] == ',');
    }
    return info;
}

void is_layout_no_hdf5_locking(hid_t fapl)
{
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#else
    (void)fapl;
#endif
}

/* Is the file system of `path` full? MPI-IO often reports a full disk only as
 * MPI_ERR_IO, so the errno of the failed write and the free space are asked too. */
static int disk_full(const char *path, int saved_errno, const char *stack)
{
    if (saved_errno == ENOSPC || saved_errno == EDQUOT || strstr(stack, "space left") ||
        strstr(stack, "No space") || strstr(stack, "quota") || strstr(stack, "Quota"))
        return 1;
    char *dir = strdup(path);
    struct statvfs vfs;
    int full = dir && statvfs(dirname(dir), &vfs) == 0 &&
               (double)vfs.f_bavail * (double)vfs.f_frsize < 1048576.0;
    free(dir);
    return full;
}

is_code is_layout_io_fail(is_error *err, const char *path, const char *verb, const char *what,
                          int building)
{
    int saved_errno = errno;
    char stack[1024];
    is_h5_error_stack(stack, sizeof stack);
    H5Eclear2(H5E_DEFAULT);
    if (disk_full(path, saved_errno, stack) && building)
        return is_error_set(err, IS_IO,
                            "%s: %s %s failed: no space left on the device (or quota "
                            "exceeded) while the file was being made: nothing of it is kept "
                            "(and a file it was to replace is untouched); free some space and "
                            "run again",
                            path, verb, what);
    if (disk_full(path, saved_errno, stack))
        return is_error_set(err, IS_IO,
                            "%s: %s %s failed: no space left on the device (or quota "
                            "exceeded): free some space and run again with --resume, which keeps "
                            "every point stored so far",
                            path, verb, what);
    return is_error_set(err, IS_HDF5, "%s: %s %s failed: %s", path, verb, what,
                        *stack ? stack : "no detail from HDF5");
}

/* --- the failed points' reasons ------------------------------------------------------- */

herr_t is_layout_reasons_create(hid_t file, uint64_t points)
{
    hsize_t code_dims = points, text_dims[2] = {IS_RESULTS_REASON_CAPACITY, IS_RESULTS_REASON_TEXT};
    hid_t code_space = H5Screate_simple(1, &code_dims, NULL);
    hid_t text_space = H5Screate_simple(2, text_dims, NULL);
    hid_t text_type = H5Tcopy(H5T_C_S1); /* rows of characters (netCDF char), as the log */
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    herr_t rc = code_space < 0 || text_space < 0 || text_type < 0 || dcpl < 0 ? -1 : 0;
    rc |= H5Pset_layout(dcpl, H5D_CONTIGUOUS) < 0 ? -1 : 0;
    rc |= H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ? -1 : 0;
    rc |= H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 ? -1 : 0;
    hid_t codes = rc == 0 ? H5Dcreate2(file, IS_LAYOUT_REASON_NAME, H5T_STD_U8LE, code_space,
                                       H5P_DEFAULT, dcpl, H5P_DEFAULT)
                          : -1;
    hid_t texts = rc == 0 ? H5Dcreate2(file, IS_LAYOUT_REASONS_NAME, text_type, text_space,
                                       H5P_DEFAULT, dcpl, H5P_DEFAULT)
                          : -1;
    rc |= codes < 0 || texts < 0 ? -1 : 0;
    char *empty = rc == 0 ? calloc(IS_RESULTS_REASON_CAPACITY, IS_RESULTS_REASON_TEXT) : NULL;
    if (rc == 0 && empty) /* every byte of the table now: later rows overwrite allocated blocks */
        rc |= H5Dwrite(texts, text_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, empty) < 0 ? -1 : 0;
    else
        rc = -1;
    if (rc == 0) {
        rc |= is_h5_attr_string(codes, "long_name",
                                "the reason the engine failed each point: the row of "
                                "/run/reasons (code - 1); 0 where it did not");
        rc |= is_h5_attr_string(texts, "long_name",
                                "the distinct reasons of failed points, row code - 1");
    }
    free(empty);
    if (codes >= 0)
        H5Dclose(codes);
    if (texts >= 0)
        H5Dclose(texts);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (text_type >= 0)
        H5Tclose(text_type);
    if (code_space >= 0)
        H5Sclose(code_space);
    if (text_space >= 0)
        H5Sclose(text_space);
    return rc;
}

void is_layout_reasons_open(hid_t file, hid_t reasons[2])
{
    reasons[0] = reasons[1] = -1;
    if (H5Lexists(file, "/run", H5P_DEFAULT) <= 0 ||
        H5Lexists(file, IS_LAYOUT_REASON_NAME, H5P_DEFAULT) <= 0 ||
        H5Lexists(file, IS_LAYOUT_REASONS_NAME, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    reasons[0] = H5Dopen2(file, IS_LAYOUT_REASON_NAME, H5P_DEFAULT);
    reasons[1] = H5Dopen2(file, IS_LAYOUT_REASONS_NAME, H5P_DEFAULT);
}

typedef struct name_room {
    char *buf;
    size_t size;
} name_room;

static herr_t scale_name(hid_t ds, unsigned dim, hid_t scale, void *data)
{
    (void)ds;
    (void)dim;
    name_room *room = data;
    char name[256];
    ssize_t n = H5Iget_name(scale, name, sizeof name);
    if (n > 0) /* "/name": the scale lives in the root group */
        snprintf(room->buf, room->size, "%s", name[0] == '/' ? name + 1 : name);
    return 1;
}

void is_layout_dimension_name(hid_t ds, int dim, char *buf, size_t size)
{
    name_room room = {buf, size};
    buf[0] = '\0';
    if (H5DSiterate_scales(ds, (unsigned)dim, NULL, scale_name, &room) < 0)
        H5Eclear2(H5E_DEFAULT);
}
