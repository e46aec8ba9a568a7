/* suggest.h: the name a near miss was meant to be ("runn" -> "run", "gama" -> "gamma"),
 * for messages that guide instead of listing. */
#ifndef IMPACTSWEEP_SUGGEST_H
#define IMPACTSWEEP_SUGGEST_H

#include <stddef.h>

/* The i-th candidate name of a list (NULL: none). */
typedef const char *is_suggest_name(const void *context, size_t i);

/* The candidate closest to `word` by edits (an insertion, a deletion, a change or a swap of
 * two neighbours, letters compared without case), if it is close enough to be a typo: at
 * most 1 edit for words of up to 4 letters, 2 beyond; NULL otherwise (and for an exact
 * match, which is no typo). Ties go to the first candidate. */
const char *is_suggest(const char *word, size_t count, is_suggest_name *name, const void *context);

/* The same over a NULL-terminated array of names. */
const char *is_suggest_among(const char *word, const char *const *names);

/* " (did you mean 'NAME'?)" into out when there is a suggestion, else ""; returns out. */
const char *is_suggest_text(char *out, size_t size, const char *suggestion);

#endif
