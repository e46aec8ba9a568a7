/* reason_table.h: the distinct reasons of failed points in memory (results.h, "the failed
 * points' reasons"): rank 0's copy of a file's /run/reasons, into which it interns every
 * new text a run or a merge meets (each written to the file and flushed before a point
 * may name it), or a worker's cache of the codes rank 0 gave it. At most
 * IS_RESULTS_REASON_CAPACITY texts of IS_RESULTS_REASON_TEXT bytes (64 KiB), whatever
 * the grid: a text past IS_RESULTS_REASON_CAPACITY - 1 distinct ones gets
 * IS_RESULTS_REASON_OTHER. */
#ifndef IMPACTSWEEP_REASON_TABLE_H
#define IMPACTSWEEP_REASON_TABLE_H

#include "error.h"
#include "results.h"

typedef struct is_reason_table {
    is_results *file;   /* rank 0: the file new texts are written into; NULL: a cache */
    char (*texts)[IS_RESULTS_REASON_TEXT];
    unsigned char *codes; /* the code of texts[i] */
    unsigned count;
    int other_written;  /* the row of IS_RESULTS_REASON_OTHER says what it means */
} is_reason_table;

/* An empty table; given `from`, holding its texts (read from the file); `owner` (from
 * open for writing): new texts are interned into it. */
is_code is_reason_table_init(is_reason_table *t, is_results *from, int owner, is_error *err);
void is_reason_table_free(is_reason_table *t);

/* The code of `text` (its first IS_RESULTS_REASON_TEXT - 1 bytes), 0 where unknown. */
unsigned is_reason_table_find(const is_reason_table *t, const char *text);
/* The text of code, or NULL. */
const char *is_reason_table_text(const is_reason_table *t, unsigned code);
/* Owner: the code of `text`, interned (row written and flushed) when new. */
is_code is_reason_table_intern(is_reason_table *t, const char *text, unsigned *code,
                               is_error *err);
/* Cache: remembers a code rank 0 gave (a full cache forgets: rank 0 is asked again). */
void is_reason_table_remember(is_reason_table *t, const char *text, unsigned code);

#endif
