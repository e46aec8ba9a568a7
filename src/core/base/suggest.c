/* suggest.c: near-miss names by the optimal string alignment distance (Levenshtein with
 * swaps of neighbours), on short names only: the cost is their lengths' product. */
#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define SUGGEST_MAX 64 /* longer names are not compared */

static size_t minimum(size_t a, size_t b)
{
    return a < b ? a : b;
}

static int same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n >= SUGGEST_MAX || m >= SUGGEST_MAX)
        return (size_t)-1;
    size_t d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
            size_t best =
                minimum(minimum(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
                best = minimum(best, d[i - 2][j - 2] + 1);
            d[i][j] = best;
        }
    return d[n][m];
}

const char *is_suggest(const char *word, size_t count, is_suggest_name *name, const void *context)
{
    if (!word || !*word)
        return NULL;
    size_t allowed = strlen(word) <= 4 ? 1 : 2, best = allowed + 1;
    const char *choice = NULL;
    for (size_t i = 0; i < count; i++) {
        const char *candidate = name(context, i);
        if (!candidate || strcmp(candidate, word) == 0)
            continue;
        size_t d = distance(word, candidate);
        if (d < best) {
            best = d;
            choice = candidate;
        }
    }
    return choice;
}

static const char *array_name(const void *context, size_t i)
{
    return ((const char *const *)context)[i];
}

const char *is_suggest_among(const char *word, const char *const *names)
{
    size_t count = 0;
    while (names && names[count])
        count++;
    return is_suggest(word, count, array_name, names);
}

const char *is_suggest_text(char *out, size_t size, const char *suggestion)
{
    if (suggestion)
        snprintf(out, size, " (did you mean '%s'?)", suggestion);
    else if (size)
        out[0] = '\0';
    return out;
}
