/* test_registry.c: the model list of the test builds (unit tests, the test binary
 * impactsweep-test): the built-in models, the synthetic one and disc (refined sweeps). Replaces
 * src/models/registry.c there, behind the same registry.h. */
#include "models/registry.h"

#include "models/chatter/chatter.h"
#include "models/collision/collision.h"
#include "models/stop_oscillator/stop_oscillator.h"
#include "synthetic/disc.h"
#include "synthetic/synthetic.h"

static const is_model *const registry[] = {
    &is_model_chatter,
    &is_model_collision,
    &is_model_stop_oscillator,
    &is_model_synthetic,
    &is_model_disc,
    NULL,
};

const is_model *const *is_registry_models(void)
{
    return registry;
}
