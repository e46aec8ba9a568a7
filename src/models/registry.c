/* registry.c: the one list of built-in models. Adding a model: its directory under
 * src/models/ and one line here. */
#include "registry.h"

#include <string.h>

#include "chatter/chatter.h"
#include "collision/collision.h"
#include "stop_oscillator/stop_oscillator.h"

static const is_model *const registry[] = {
    &is_model_chatter,
    &is_model_collision,
    &is_model_stop_oscillator,
    NULL,
};

const is_model *const *is_registry_models(void)
{
    return registry;
}

const is_model *is_registry_find(const char *name)
{
    for (const is_model *const *m = registry; *m; m++)
        if (strcmp((*m)->name, name) == 0)
            return *m;
    return NULL;
}
