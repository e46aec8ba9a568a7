/* registry.h: the list of built-in models, looked up by name. */
#ifndef IMPACTSWEEP_REGISTRY_H
#define IMPACTSWEEP_REGISTRY_H

#include <stddef.h>

#include "../core/contract/engine.h"
#include "../core/contract/model.h"

/* NULL-terminated array of every model. */
const is_model *const *is_registry_models(void);
/* The named model, or NULL. */
static inline const is_model *is_registry_find(const char *name)
{
    return is_model_find(is_registry_models(), name);
}

#endif
