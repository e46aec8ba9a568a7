/* synthetic.h: the synthetic model, for the engine's own tests and benchmarks only (it
 * is registered in tests/models/test_registry.c, never in the shipped binary). */
#ifndef IMPACTSWEEP_SYNTHETIC_H
#define IMPACTSWEEP_SYNTHETIC_H

#include "core/contract/model.h"

extern const is_model is_model_synthetic;

/* Spends `seconds` of wall time busy (a point's cost; also the disc model's). */
void synthetic_busy_wait(double seconds);

#endif
