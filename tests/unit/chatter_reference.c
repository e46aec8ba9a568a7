/* chatter_reference.c: the tests' independent simulator of chatter drops, in long double
 * (see chatter_reference.h for what it shares with the model: the initial states only). */
#include "chatter_reference.h"

#include <math.h>
#include <stdlib.h>

#include "models/chatter/chatter.h"

typedef long double real;

typedef struct body {
    int n;
    real fx[CHATTER_MAX_VERTICES], fy[CHATTER_MAX_VERTICES]; /* f_i = (y_i, -x_i, 1) */
    real rho2, gamma;
} body;

/* Where cosl and sinl miss 0, +-1/2, +-1 by their last bits (sin(pi) != 0 would couple
 * the rod's idle rotation in). */
static real exact(real v)
{
    static const real values[] = {-1.0L, -0.5L, 0.0L, 0.5L, 1.0L};
    for (int k = 0; k < 5; k++)
        if (fabsl(v - values[k]) < 1e-18L)
            return values[k];
    return v;
}

static void body_init(body *b, int n, double rho, double gamma)
{
    const real pi = acosl(-1.0L);
    b->n = n;
    for (int i = 0; i < n; i++) {
        real angle = 2.0L * pi * i / n;
        b->fx[i] = exact(sinl(angle));
        b->fy[i] = -exact(cosl(angle));
    }
    b->rho2 = (real)rho * (real)rho;
    b->gamma = gamma;
}

static real speed(const body *b, int j, const real v[3])
{
    return b->fx[j] * v[0] + b->fy[j] * v[1] + v[2];
}

/* Newton's impact at vertex j with the vertical impulse along Theta^-1 f_j:
 * p -= (1 + gamma) (f_j.p) Theta^-1 f_j / (f_j^T Theta^-1 f_j). */
static void impact(const body *b, int j, real p[3])
{
    real direction[3] = {b->fx[j] / b->rho2, b->fy[j] / b->rho2, 1.0L};
    real mass = (b->fx[j] * b->fx[j] + b->fy[j] * b->fy[j]) / b->rho2 + 1.0L;
    real impulse = (1.0L + b->gamma) * speed(b, j, p) / mass;
    for (int k = 0; k < 3; k++)
        p[k] -= impulse * direction[k];
}

static int normalise(real v[3])
{
    real big = fmaxl(fabsl(v[0]), fmaxl(fabsl(v[1]), fabsl(v[2])));
    if (!(big > 0.0L) || !isfinite(big))
        return 0;
    int e;
    frexpl(big, &e);
    for (int k = 0; k < 3; k++)
        v[k] = ldexpl(v[k], -e);
    return e;
}

/* The vertex hit next (-1: none approaches) and its flight time. */
static int next_vertex(const body *b, int last, const real q[3], const real p[3], real *flight)
{
    int next = -1;
    *flight = INFINITY;
    for (int j = 0; j < b->n; j++) {
        real v = speed(b, j, p);
        if (j == last || !(v < 0.0L))
            continue;
        real h = speed(b, j, q), t = h > 0.0L ? h / -v : 0.0L;
        if (t < *flight) {
            *flight = t;
            next = j;
        }
    }
    return next;
}

/* PCC's gate as the README states it: adjacent, both speeds below 1e-6 |p_3|. */
static int at_gate(const body *b, int last, int next, const real p[3])
{
    int step = abs(next - last);
    if (b->n < 3 || last < 0 || (step != 1 && step != b->n - 1))
        return 0;
    real limit = (real)CHATTER_PCC_TOLERANCE * fabsl(p[2]);
    return fabsl(speed(b, last, p)) < limit && -speed(b, next, p) < limit;
}

/* PCC: real distinct roots of the pair's alternation (with the kernel's margin), then the
 * pair followed impact by impact: it must keep alternating, p_3 < 0, until both speeds are
 * below 1e-15 |p_3|, every other vertex keeping more than half its height. */
static int pcc_followed(const body *b, int last, int next, const real q0[3], const real p0[3])
{
    const real pi = acosl(-1.0L);
    real s = (cosl(2.0L * pi * (last - next) / b->n) + b->rho2) / (1.0L + b->rho2);
    real c = (1.0L + b->gamma) * -s, disc = c * c - 4.0L * b->gamma;
    if (!(s < 0.0L) || !(disc > 1e-9L * c * c))
        return 0;
    real q[3] = {q0[0], q0[1], q0[2]}, p[3] = {p0[0], p0[1], p0[2]}, start[CHATTER_MAX_VERTICES];
    for (int m = 0; m < b->n; m++)
        start[m] = speed(b, m, q);
    int coming = next, gone = last;
    for (int step = 0; step < 20000; step++) {
        real v = speed(b, coming, p);
        if (!(v < 0.0L))
            return 0; /* the alternation died out */
        real h = fmaxl(speed(b, coming, q), 0.0L), flight = h / -v;
        for (int k = 0; k < 3; k++)
            q[k] += flight * p[k];
        impact(b, coming, p);
        if (!(p[2] < 0.0L))
            return 0;
        int hit = coming;
        coming = gone;
        gone = hit;
        for (int m = 0; m < b->n; m++)
            if (m != coming && m != gone && !(speed(b, m, q) > 0.5L * start[m]))
                return 0; /* another vertex came down */
        real rest = 1e-15L * fabsl(p[2]);
        if (fabsl(speed(b, coming, p)) < rest && fabsl(speed(b, gone, p)) < rest)
            return 1;
    }
    return 0;
}

void chatter_ref_simulate_state(int n, double rho, double gamma, const double q0[3],
                                const double p0[3], int64_t max_impacts, chatter_ref_drop *drop)
{
    body b;
    body_init(&b, n, rho, gamma);
    real q[3] = {q0[0], q0[1], q0[2]}, p[3] = {p0[0], p0[1], p0[2]};
    int q_exp = normalise(q), p_exp = normalise(p), last = -1;
    drop->impacts = 0;
    drop->time = 0.0L;
    drop->min_ratio = INFINITY;
    drop->outcome = CHATTER_CC;
    while (drop->impacts < max_impacts) {
        real flight;
        int next = next_vertex(&b, last, q, p, &flight);
        if (next < 0) {
            drop->outcome = CHATTER_ICC;
            return;
        }
        int pcc = at_gate(&b, last, next, p) && pcc_followed(&b, last, next, q, p);
        real height = q[2];
        for (int k = 0; k < 3; k++)
            q[k] += flight * p[k];
        impact(&b, next, p);
        drop->impacts++;
        drop->time += ldexpl(flight, q_exp - p_exp);
        last = next;
        real ratio = q[2] / height;
        int flat = n >= 3 && ratio <= 0x1p-32L;
        if (!flat && n >= 3)
            drop->min_ratio = fmin(drop->min_ratio, (double)ratio);
        if (pcc || flat || !(p[2] < 0.0L)) {
            drop->outcome = pcc ? CHATTER_PCC : flat ? CHATTER_FLAT : CHATTER_ICC;
            return;
        }
        q_exp += normalise(q);
        p_exp += normalise(p);
    }
}

void chatter_ref_simulate(int n, double rho, double gamma, uint64_t seed, uint64_t sample,
                          int64_t max_impacts, chatter_ref_drop *drop)
{
    double point[CHATTER_PARAM_COUNT] = {[CHATTER_N] = n,
                                         [CHATTER_RHO] = rho,
                                         [CHATTER_GAMMA] = gamma,
                                         [CHATTER_PERTURBATION] = 0.1,
                                         [CHATTER_SEED] = (double)seed};
    double q0[3], p0[3];
    chatter_initial_state(point, sample, q0, p0);
    chatter_ref_simulate_state(n, rho, gamma, q0, p0, max_impacts, drop);
}
