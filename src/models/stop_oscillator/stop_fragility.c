/* stop_fragility.c: the `fragility` parameter's twins (issue 30). A decided class is
 * proved for the computed trajectory; near a semi-stable 2-phase orbit the basins are
 * finer than the rounding of that trajectory, and a start moved by a few units of
 * rounding may settle elsewhere. The twin of a decided point runs from its initial state
 * moved by STOP_TWIN_SHIFT (stop_oscillator.h says how) and `fragile` says whether its
 * regime differs. The twins of a batch run in the lanes as ordinary points, a chunk at a
 * time from the workspace's buffers (no allocation per batch), so a twin costs what its
 * point cost; with fragility 0 nothing here runs but the scan for a point that wants one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stop_oscillator.h"

/* Twins run together in the lanes: enough that the lanes stay full but for the chunk's
 * tail (12 lanes; the tail is where the last long points finish alone). */
#define TWIN_CHUNK 256

struct stop_twins {
    double points[TWIN_CHUNK * STOP_PARAM_COUNT];
    double outputs[TWIN_CHUNK * STOP_OUTPUT_COUNT];
    uint8_t status[TWIN_CHUNK];
    size_t index[TWIN_CHUNK]; /* the batch's point each twin belongs to */
};

stop_twins *stop_twins_create(void)
{
    return malloc(sizeof(stop_twins));
}

void stop_twins_free(stop_twins *twins)
{
    free(twins);
}

/* A component moved towards 0 by the shift relative, or a zero one by the shift in the
 * point's unit of that quantity (a relative shift cannot move it). */
static double moved(double c, double unit)
{
    return c != 0.0 ? c * (1.0 - STOP_TWIN_SHIFT) : STOP_TWIN_SHIFT * unit;
}

void stop_twin_point(const double *p, double *twin)
{
    memcpy(twin, p, STOP_PARAM_COUNT * sizeof *p);
    double length = p[STOP_S], speed = p[STOP_S] * sqrt(p[STOP_K]);
    twin[STOP_X1] = moved(p[STOP_X1], length);
    twin[STOP_V1] = moved(p[STOP_V1], speed);
    twin[STOP_X2] = moved(p[STOP_X2], length);
    twin[STOP_V2] = moved(p[STOP_V2], speed);
    twin[STOP_FRAGILITY] = 0.0;
    twin[STOP_SECTIONS] = 0.0; /* only its regime is read */
}

int stop_twin_wanted(const double *p, uint8_t status, double regime)
{
    return p[STOP_FRAGILITY] != 0.0 && status == IS_POINT_DONE &&
           (regime == REGIME_FREE || regime == REGIME_PERIODIC || regime == REGIME_IMPACTING);
}

/* fragile from the point's regime and its twin's (a failed twin's regime is failed). */
static double fragile(double regime, double twin_regime)
{
    return twin_regime == regime ? STOP_ROBUST : STOP_FRAGILE_CLASS;
}

int stop_twin_alone(void *workspace, const double *p, double *const *out, uint8_t *status)
{
    if (!stop_twin_wanted(p, *status, *out[STOP_REGIME]))
        return 0;
    double twin[STOP_PARAM_COUNT], result[STOP_OUTPUT_COUNT], *slots[STOP_OUTPUT_COUNT];
    uint8_t twin_status = IS_POINT_PENDING;
    for (int o = 0; o < STOP_OUTPUT_COUNT; o++) {
        result[o] = NAN;
        slots[o] = &result[o];
    }
    stop_twin_point(p, twin);
    if (stop_evaluate_point(workspace, twin, NULL, slots, &twin_status) ||
        twin_status == IS_POINT_PENDING) {
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            *out[o] = NAN;
        *status = IS_POINT_PENDING;
        return 1;
    }
    *out[STOP_FRAGILE] = fragile(*out[STOP_REGIME], result[STOP_REGIME]);
    return 0;
}

/* The n twins in the buffers: run them, and give their points `fragile` (or, stopped,
 * leave those points pending). */
static void run_chunk(stop_twins *tw, size_t n, stop_lanes *lanes, void *workspace,
                      size_t count, double *outputs, uint8_t *status)
{
    stop_lanes_eval(lanes, workspace, tw->points, n, tw->outputs, tw->status);
    for (size_t j = 0; j < n; j++) {
        size_t i = tw->index[j];
        if (tw->status[j] == IS_POINT_PENDING) {
            for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
                outputs[(size_t)o * count + i] = NAN;
            status[i] = IS_POINT_PENDING;
            continue;
        }
        outputs[(size_t)STOP_FRAGILE * count + i] =
            fragile(outputs[(size_t)STOP_REGIME * count + i], tw->outputs[STOP_REGIME * n + j]);
    }
}

void stop_twins_eval(stop_twins *tw, stop_lanes *lanes, void *workspace, const double *points,
                     size_t count, double *outputs, uint8_t *status)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const double *p = points + i * STOP_PARAM_COUNT;
        if (!stop_twin_wanted(p, status[i], outputs[(size_t)STOP_REGIME * count + i]))
            continue;
        tw->index[n] = i;
        stop_twin_point(p, tw->points + n * STOP_PARAM_COUNT);
        if (++n == TWIN_CHUNK) {
            run_chunk(tw, n, lanes, workspace, count, outputs, status);
            n = 0;
        }
    }
    if (n > 0)
        run_chunk(tw, n, lanes, workspace, count, outputs, status);
}
