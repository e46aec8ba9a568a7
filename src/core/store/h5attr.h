/* h5attr.h: small HDF5 helpers shared by the result-file writer and reader:
 * attributes (variable-length UTF-8 strings, numbers, arrays) and error text. */
#ifndef IMPACTSWEEP_H5ATTR_H
#define IMPACTSWEEP_H5ATTR_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Records an HDF5 failure ("path: what failed: innermost HDF5 message") and clears
 * HDF5's error stack; returns IS_HDF5. */
is_code is_h5_fail(is_error *err, const char *path, const char *what);

/* Each (re)writes one attribute of loc, replacing any of the same name; < 0 on error. */
herr_t is_h5_attr_string(hid_t loc, const char *name, const char *value);
herr_t is_h5_attr_array(hid_t loc, const char *name, hid_t type, size_t count,
                        const void *values);
herr_t is_h5_attr_double(hid_t loc, const char *name, double value);
herr_t is_h5_attr_int64(hid_t loc, const char *name, int64_t value);

/* Reads a string attribute (or an integer one, printed) into buf; empty if absent. */
void is_h5_attr_read_string(hid_t loc, const char *name, char *buf, size_t size);

/* A string attribute as a new buffer (caller frees), or NULL if absent. */
char *is_h5_attr_read_text(hid_t loc, const char *name);

/* Every message on HDF5's error stack, innermost first, " | " between (not cleared). */
void is_h5_error_stack(char *buf, size_t size);

/* Appends one line to the multi-line `history` attribute of loc. */
herr_t is_h5_history_append(hid_t loc, const char *line);

#endif
