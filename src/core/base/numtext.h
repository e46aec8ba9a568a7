/* numtext.h: numbers as people write them: the shortest decimal text that reads back (with
 * strtod) to the same double, for every place a number is printed (messages, JSON,
 * `models`, `info`, attributes written as text). */
#ifndef IMPACTSWEEP_NUMTEXT_H
#define IMPACTSWEEP_NUMTEXT_H

#include <stddef.h>

/* Room for any double's text: sign, 17 digits, point, exponent, NUL. */
#define IS_NUMTEXT_SIZE 32

/* Writes v into buf (IS_NUMTEXT_SIZE bytes) and returns buf: 0.3 is "0.3", 1e-5 is "1e-05",
 * 2^53 + 2 is "9007199254740994"; "nan", "inf" and "-inf" for the others. */
char *is_numtext(char *buf, double v);

/* For a call's arguments: is_error_set(err, code, "x = %s", IS_NUM(x)) (the text lives
 * until the end of the enclosing block). */
#define IS_NUM(v) is_numtext((char[IS_NUMTEXT_SIZE]){0}, (v))

/* A size in bytes as people read it, 3 significant digits in the largest unit that keeps
 * it at least 1 (decimal units: "512 B", "1.29 GB", "143 TB"); returns buf (at least 16
 * bytes). */
char *is_bytestext(char *buf, size_t size, double bytes);

#endif
