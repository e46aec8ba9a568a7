/* registry.c: the one list of built-in models. Adding a model: its directory under
 * src/models/ and one line here. */
#include "registry.h"

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
