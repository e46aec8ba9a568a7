/* chatter_plugin.c: the built-in chatter model's own code, built as a plug-in under the
 * name chatter-plugin: the tests compare its files with the built-in model's (the same
 * results, bit for bit) and the benchmark measures what calling a model through the
 * plug-in contract costs. (A user's plug-in ends with IS_MODEL_PLUGIN(table); this one
 * renames a table defined elsewhere, so it writes the two exports itself.) */
#include "models/chatter/chatter.h"

static is_model renamed;

__attribute__((visibility("default"))) const int impactsweep_model_abi = IS_MODEL_ABI_VERSION;

__attribute__((visibility("default"))) const is_model *impactsweep_model(void)
{
    renamed = is_model_chatter;
    renamed.name = "chatter-plugin";
    renamed.version = "test";
    return &renamed;
}
