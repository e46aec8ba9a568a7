/* h5attr.c: attribute and error helpers (see h5attr.h). */
#include "h5attr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numtext.h"

static herr_t first_error(unsigned n, const H5E_error2_t *e, void *data)
{
    char *buf = data;
    if (n == 0 && e->desc)
        snprintf(buf, 256, "%s", e->desc);
    return 0;
}

is_code is_h5_fail(is_error *err, const char *path, const char *what)
{
    char detail[256] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, detail);
    H5Eclear2(H5E_DEFAULT);
    return is_error_set(err, IS_HDF5, "%s: %s failed%s%s", path, what, *detail ? ": " : "",
                        detail);
}

static herr_t attribute_write(hid_t loc, const char *name, hid_t type, hid_t space,
                              const void *value)
{
    if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0)
        return -1;
    hid_t attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        return -1;
    herr_t rc = H5Awrite(attr, type, value);
    H5Aclose(attr);
    return rc;
}

static hid_t string_type(void)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    return type;
}

herr_t is_h5_attr_string(hid_t loc, const char *name, const char *value)
{
    hid_t type = string_type(), space = H5Screate(H5S_SCALAR);
    herr_t rc = attribute_write(loc, name, type, space, &value);
    H5Sclose(space);
    H5Tclose(type);
    return rc;
}

herr_t is_h5_attr_array(hid_t loc, const char *name, hid_t type, size_t count,
                        const void *values)
{
    hsize_t dims[1] = {count};
    hid_t space = count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    herr_t rc = attribute_write(loc, name, type, space, values);
    H5Sclose(space);
    return rc;
}

herr_t is_h5_attr_double(hid_t loc, const char *name, double value)
{
    return is_h5_attr_array(loc, name, H5T_NATIVE_DOUBLE, 1, &value);
}

herr_t is_h5_attr_int64(hid_t loc, const char *name, int64_t value)
{
    return is_h5_attr_array(loc, name, H5T_NATIVE_INT64, 1, &value);
}

char *is_h5_attr_read_text(hid_t loc, const char *name)
{
    if (H5Aexists(loc, name) <= 0)
        return NULL;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t type = attr < 0 ? -1 : H5Aget_type(attr);
    char *text = NULL;
    if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
        hid_t mem = H5Tcopy(type);
        char *value = NULL;
        if (H5Aread(attr, mem, &value) >= 0 && value) {
            text = strdup(value);
            H5free_memory(value);
        }
        H5Tclose(mem);
    } else if (type >= 0 && H5Tget_class(type) == H5T_STRING) {
        size_t n = H5Tget_size(type);
        text = calloc(1, n + 1);
        if (text && H5Aread(attr, type, text) < 0) {
            free(text);
            text = NULL;
        }
    }
    if (type >= 0)
        H5Tclose(type);
    if (attr >= 0)
        H5Aclose(attr);
    return text;
}

static herr_t all_errors(unsigned n, const H5E_error2_t *e, void *data)
{
    char *buf = data;
    size_t used = strlen(buf);
    if (e->desc && used + 3 < 1024)
        snprintf(buf + used, 1024 - used, "%s%s", n ? " | " : "", e->desc);
    return 0;
}

void is_h5_error_stack(char *buf, size_t size)
{
    char all[1024] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, all_errors, all);
    snprintf(buf, size, "%s", all);
}

void is_h5_attr_read_string(hid_t loc, const char *name, char *buf, size_t size)
{
    buf[0] = '\0';
    if (H5Aexists(loc, name) <= 0)
        return;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t type = H5Aget_type(attr);
    H5T_class_t cls = H5Tget_class(type);
    if (cls == H5T_STRING && H5Tis_variable_str(type) > 0) {
        /* read in the file's own character set: HDF5 converts no charsets */
        hid_t mem = H5Tcopy(type);
        char *value = NULL;
        if (H5Aread(attr, mem, &value) >= 0 && value) {
            snprintf(buf, size, "%s", value);
            H5free_memory(value);
        }
        H5Tclose(mem);
    } else if (cls == H5T_STRING) {
        size_t n = H5Tget_size(type);
        char *tmp = calloc(1, n + 1);
        if (tmp && H5Aread(attr, type, tmp) >= 0)
            snprintf(buf, size, "%s", tmp);
        free(tmp);
    } else if (cls == H5T_INTEGER) {
        long long v = 0;
        if (H5Aread(attr, H5T_NATIVE_LLONG, &v) >= 0)
            snprintf(buf, size, "%lld", v);
    } else if (cls == H5T_FLOAT) {
        double v = 0;
        if (H5Aread(attr, H5T_NATIVE_DOUBLE, &v) >= 0)
            snprintf(buf, size, "%s", IS_NUM(v));
    }
    H5Tclose(type);
    H5Aclose(attr);
}

herr_t is_h5_history_append(hid_t loc, const char *line)
{
    size_t cap = 1 << 16;
    char *old = malloc(cap);
    if (!old)
        return -1;
    is_h5_attr_read_string(loc, "history", old, cap);
    size_t n = strlen(old) + strlen(line) + 2;
    char *joined = malloc(n);
    herr_t rc = -1;
    if (joined) {
        snprintf(joined, n, "%s%s%s", old, *old ? "\n" : "", line);
        rc = is_h5_attr_string(loc, "history", joined);
    }
    free(joined);
    free(old);
    return rc;
}
