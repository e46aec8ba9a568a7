/* disc.h: the disc model, for the tests of refined sweeps only (registered in
 * tests/models/test_registry.c, never in the shipped binary). */
#ifndef IMPACTSWEEP_DISC_H
#define IMPACTSWEEP_DISC_H

#include "core/contract/model.h"

extern const is_model is_model_disc;

#endif
