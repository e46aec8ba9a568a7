/* numtext.c: the shortest round-trip text of a double (see numtext.h). */
#include "numtext.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

char *is_numtext(char *buf, double v)
{
    if (isnan(v)) {
        snprintf(buf, IS_NUMTEXT_SIZE, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, IS_NUMTEXT_SIZE, "%s", v < 0 ? "-inf" : "inf");
        return buf;
    }
    /* When a text of at most 15 significant digits reads back to v, %.15g finds it: v lies
     * within half a unit in the 17th digit of it, so rounding v to 15 digits gives that text
     * (with %g's trailing zeros dropped). Past 15, 16 then 17 digits (always enough). */
    int digits = fabs(v) < DBL_MIN && v != 0 ? 1 : 15; /* subnormals carry fewer digits */
    for (; digits <= 17; digits++) {
        snprintf(buf, IS_NUMTEXT_SIZE, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

char *is_bytestext(char *buf, size_t size, double bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    while (bytes >= 999.5 && u < 6) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, size, u ? "%.3g %s" : "%.0f %s", bytes, units[u]);
    return buf;
}
