/* error.c: messages and exit statuses of the error codes in error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static const struct {
    const char *name;
    int exit_status;
    const char *text;
} error_table[IS_ERROR_COUNT] = {
#define IS_ERROR_ROW(name, status, text) {#name, status, text},
    IS_ERROR_LIST(IS_ERROR_ROW)
#undef IS_ERROR_ROW
};

is_code is_error_set(is_error *err, is_code code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void is_error_clear(is_error *err)
{
    if (err) {
        err->code = IS_OK;
        err->message[0] = '\0';
    }
}

const char *is_code_name(is_code code)
{
    return (unsigned)code < IS_ERROR_COUNT ? error_table[code].name : "UNKNOWN";
}

const char *is_code_text(is_code code)
{
    return (unsigned)code < IS_ERROR_COUNT ? error_table[code].text : "unknown error";
}

int is_code_exit_status(is_code code)
{
    return (unsigned)code < IS_ERROR_COUNT ? error_table[code].exit_status : 1;
}

char *is_path_with_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *joined = malloc(n);
    if (joined)
        snprintf(joined, n, "%s%s", path, suffix);
    return joined;
}
