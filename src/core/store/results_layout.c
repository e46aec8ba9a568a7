/* results_layout.c: the layout details shared by results.c and results_create.c (see
 * results_layout.h). */
#include "results_layout.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "h5attr.h"

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
