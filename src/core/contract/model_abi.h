/* model_abi.h: a plug-in's table read as this engine's (model.h, "Versions"). The loader
 * never uses a plug-in's table in place: it makes a copy in the engine's own layout,
 * from the table of contract 3.x (the sizes in its IS_MODEL_HEADER say how far each
 * struct reaches; what a smaller one lacks is zero, i.e. absent) or of contracts 1 and 2
 * (before the header: their fixed layouts, converted as HDF5 converts an H5Z_class1_t).
 * The copy keeps the plug-in's strings and functions: it lives while the library is
 * loaded. */
#ifndef IMPACTSWEEP_MODEL_ABI_H
#define IMPACTSWEEP_MODEL_ABI_H

#include "error.h"
#include "model.h"

typedef struct is_model_copy is_model_copy;

/* Reads `table`, exported by a library (named in messages as `library`) that says it was
 * built against contract major `major` (its impactsweep_model_abi). IS_PLUGIN, with the
 * library, its version and this engine's, for a major or minor it cannot read or a header
 * that does not add up. */
is_code is_model_abi_read(const void *table, int major, const char *library, is_model_copy **copy,
                          is_error *err);

/* The table in the engine's layout (valid until is_model_abi_free). */
const is_model *is_model_abi_model(const is_model_copy *copy);

/* "3.0", "2 (before the ABI header)" as read: for messages and `impactsweep models`. */
const char *is_model_abi_version(const is_model_copy *copy);

void is_model_abi_free(is_model_copy **copy);

#endif
