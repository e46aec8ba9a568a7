/* reason_table.c: the distinct reasons of failed points in memory (see reason_table.h). */
#include "reason_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_REASON "(no reason given)"
#define OTHER_TEXT                                                                           \
    "(another reason: the file keeps at most 254 distinct ones; the point's status names " \
    "its kind)"

is_code is_reason_table_init(is_reason_table *t, is_results *from, int owner, is_error *err)
{
    memset(t, 0, sizeof *t);
    t->texts = calloc(IS_RESULTS_REASON_CAPACITY, sizeof *t->texts);
    t->codes = calloc(IS_RESULTS_REASON_CAPACITY, 1);
    if (!t->texts || !t->codes) {
        is_reason_table_free(t);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    t->file = owner ? from : NULL;
    if (!from || !is_results_has_reasons(from))
        return IS_OK;
    /* rows are interned in order: the table ends at the first empty one (a row torn by a
     * kill names no point, which waits for its row to be flushed: it is written again) */
    for (unsigned code = 1; code < IS_RESULTS_REASON_OTHER; code++) {
        is_code rc = is_results_reason_text(from, code, t->texts[t->count], 0, err);
        if (rc != IS_OK) {
            is_reason_table_free(t);
            return rc;
        }
        if (!t->texts[t->count][0])
            break;
        t->codes[t->count++] = (unsigned char)code;
    }
    char other[IS_RESULTS_REASON_TEXT];
    is_code rc = is_results_reason_text(from, IS_RESULTS_REASON_OTHER, other, 0, err);
    if (rc != IS_OK) {
        is_reason_table_free(t);
        return rc;
    }
    t->other_written = other[0] != '\0';
    return IS_OK;
}

void is_reason_table_free(is_reason_table *t)
{
    free(t->texts);
    free(t->codes);
    t->texts = NULL;
    t->codes = NULL;
    t->count = 0;
}

unsigned is_reason_table_find(const is_reason_table *t, const char *text)
{
    text = *text ? text : NO_REASON;
    for (unsigned i = 0; i < t->count; i++)
        if (strncmp(t->texts[i], text, IS_RESULTS_REASON_TEXT - 1) == 0)
            return t->codes[i];
    return 0;
}

const char *is_reason_table_text(const is_reason_table *t, unsigned code)
{
    if (code == IS_RESULTS_REASON_OTHER)
        return OTHER_TEXT;
    for (unsigned i = 0; i < t->count; i++)
        if (t->codes[i] == code)
            return t->texts[i];
    return NULL;
}

is_code is_reason_table_intern(is_reason_table *t, const char *text, unsigned *code,
                               is_error *err)
{
    text = *text ? text : NO_REASON;
    *code = is_reason_table_find(t, text);
    if (*code)
        return IS_OK;
    if (!t->file)
        return is_error_set(err, IS_INTERNAL, "a reason interned into a cache");
    is_code rc = IS_OK;
    /* full, or another file's "other" (a merge): "other" */
    if (t->count >= IS_RESULTS_REASON_OTHER - 1 || strcmp(text, OTHER_TEXT) == 0) {
        *code = IS_RESULTS_REASON_OTHER;
        if (!t->other_written) {
            char row[IS_RESULTS_REASON_TEXT];
            snprintf(row, sizeof row, "%s", OTHER_TEXT);
            rc = is_results_reason_text(t->file, IS_RESULTS_REASON_OTHER, row, 1, err);
            if (rc == IS_OK)
                rc = is_results_sync(t->file, err);
            t->other_written = rc == IS_OK;
        }
        return rc;
    }
    unsigned next = t->count + 1;
    char *row = t->texts[t->count];
    snprintf(row, IS_RESULTS_REASON_TEXT, "%s", text);
    /* the row on stable storage before any point names it */
    rc = is_results_reason_text(t->file, next, row, 1, err);
    if (rc == IS_OK)
        rc = is_results_sync(t->file, err);
    if (rc != IS_OK) {
        row[0] = '\0';
        *code = 0;
        return rc;
    }
    t->codes[t->count++] = (unsigned char)next;
    *code = next;
    return IS_OK;
}

void is_reason_table_remember(is_reason_table *t, const char *text, unsigned code)
{
    text = *text ? text : NO_REASON;
    if (t->count >= IS_RESULTS_REASON_CAPACITY || code == 0 || is_reason_table_find(t, text))
        return;
    snprintf(t->texts[t->count], IS_RESULTS_REASON_TEXT, "%s", text);
    t->codes[t->count++] = (unsigned char)code;
}
