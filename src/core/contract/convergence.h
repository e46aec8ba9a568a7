/* convergence.h: `impactsweep models --check`'s convergence test: a model's outputs must
 * settle as its tolerance tightens (tolerance.h), else self-verification would measure
 * nothing. */
#ifndef IMPACTSWEEP_CONVERGENCE_H
#define IMPACTSWEEP_CONVERGENCE_H

#include <stddef.h>

#include "conformance.h"
#include "error.h"
#include "model.h"

/* Evaluates the check's sample (the defaults, and the defaults with one real parameter
 * moved) at tolerances t0, t0 / 100 and t0 / 10^4, where t0 is each tolerance parameter's
 * default, raised where needed so that t0 / 10^4 stays within its range and at 1e-12 or
 * above (tighter asks more than doubles hold: integrators then fail erratically). With d01 and d12
 * the discrepancies (tolerance.h) of each output between the first two and the last two,
 * a model passes when, for every real output and point done at all three,
 *     d12 <= max(d01, 1e-12)  (it settles: tightening further changes it less), and
 *     d12 <= 1000 x t0        (within the default verify_tolerance of a run at t0);
 * an integer or a category may change in one step (a point near a graze settles), not in
 * both. An output whose error stays put (a soft floor's event located to 1e-4 whatever
 * the tolerance) fails both. Where no tolerance parameter applies at the defaults, the
 * sample takes the first choice of a choice parameter that makes one apply.
 * IS_PLUGIN naming the output, the point and the numbers when it does not. `note` says
 * what was tested (or that the model has no tolerance parameter). */
is_code is_convergence_check(const is_model *model, is_conformance_evaluate evaluate,
                             void *context, char *note, size_t note_size, is_error *err);

#endif
