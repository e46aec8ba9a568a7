/* model_text.h: a model's table as text, and back. Every result file keeps its model's
 * table this way (the root attribute `model_table`) with the digest of what determines
 * its results (`model_table_sha256`: the name, the version, the parameters and outputs;
 * not the description, nor the figures' labels): --resume accepts a rebuilt plug-in
 * whose digest is unchanged (the same declared version and tables), and merge reads the
 * model from the file, with no plug-in loaded. A model read back is a description: no
 * functions. */
#ifndef IMPACTSWEEP_MODEL_TEXT_H
#define IMPACTSWEEP_MODEL_TEXT_H

#include "error.h"
#include "model.h"

/* The table as text (caller frees), and its digest (64 hex digits) into sha256, if not
 * NULL. NULL when out of memory. `version` stands for a NULL model->version (a built-in
 * model's is the engine's). */
char *is_model_text(const is_model *model, const char *version, char sha256[65]);

typedef struct is_model_described is_model_described;

/* A model described by is_model_text's text: its table, no functions. IS_NOT_RESULT when
 * the text is not such a table (a damaged file). */
is_code is_model_describe(const char *text, is_model_described **described, is_error *err);
const is_model *is_model_described_model(const is_model_described *described);
void is_model_described_free(is_model_described **described);

#endif
