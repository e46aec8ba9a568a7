/* point.c: a parameter point from name=value arguments (see point.h). */
#include "point.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/contract/engine.h"
#include "../core/job/job.h"

is_code is_cli_point_parse(const is_model *m, char *const *args, int first, int end,
                           double *point, is_error *err)
{
    for (size_t p = 0; p < m->param_count; p++)
        point[p] = m->params[p].default_value;
    is_code rc = IS_OK;
    for (int i = first; i < end && rc == IS_OK; i++) {
        if (!args[i])
            continue;
        char origin[64], name[128];
        snprintf(origin, sizeof origin, "argument %d", i);
        const char *eq = strchr(args[i], '=');
        if (!eq || eq == args[i] || (size_t)(eq - args[i]) >= sizeof name)
            return is_error_set(err, IS_USAGE, "%s: '%s': expected name=value", origin, args[i]);
        memcpy(name, args[i], (size_t)(eq - args[i]));
        name[eq - args[i]] = '\0';
        for (int j = first; j < i; j++) /* as a job file: a parameter given once */
            if (args[j] && strncmp(args[j], name, (size_t)(eq - args[i])) == 0 &&
                args[j][eq - args[i]] == '=')
                return is_error_set(err, IS_USAGE,
                                    "%s: %s is given twice (also argument %d): give each "
                                    "parameter once",
                                    origin, name, j);
        int p = is_model_param_index(m, name);
        rc = is_job_parse_param_value(m, origin, name, eq + 1, p >= 0 ? &point[p] : point, err);
    }
    for (size_t p = 0; p < m->param_count && rc == IS_OK; p++)
        if (isnan(point[p]))
            rc = is_error_set(err, IS_PARAM, "parameter %s has no default: give %s=VALUE",
                              m->params[p].name, m->params[p].name);
    for (int i = first; i < end && rc == IS_OK; i++) { /* as in a job: no value that is unused */
        if (!args[i])
            continue;
        const char *eq = strchr(args[i], '=');
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - args[i]), args[i]);
        int p = is_model_param_index(m, name);
        if (p >= 0 && !is_param_applies(m, (size_t)p, point)) {
            char when[512];
            is_param_format_when(m, (size_t)p, when, sizeof when);
            rc = is_error_set(err, IS_PARAM,
                              "argument %d: %s does not apply with these choices (it is used "
                              "with %s)",
                              i, name, when);
        }
    }
    return rc;
}
