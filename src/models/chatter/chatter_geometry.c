/* chatter_geometry.c: the n-gon's contact geometry, the impact map, the random initial
 * drops, the end-state classifier, and a plain scalar simulation of one drop (the
 * reference the vectorised kernel in chatter_batch.c is tested against). */
#include "chatter.h"

#include <math.h>
#include <stdlib.h>

#include "../../core/base/rng.h"

/* cos/sin of 2 pi i / n are exact only where they are 0, +-1/2 or +-1; elsewhere the
 * last bit is noise, and noise at a true zero couples motions that do not interact
 * (sin(pi) = 1.2e-16 couples the rod's idle phi_x into its contacts). */
static double snap(double v)
{
    static const double exact[] = {-1.0, -0.5, 0.0, 0.5, 1.0};
    for (int k = 0; k < 5; k++)
        if (fabs(v - exact[k]) < 8e-16)
            return exact[k];
    return v;
}

void chatter_geometry_init(chatter_geometry *geometry, int n)
{
    double x[CHATTER_MAX_VERTICES], y[CHATTER_MAX_VERTICES];
    geometry->n = n;
    /* Build the upper half and mirror it, so that the polygon is exactly symmetric
     * about the x axis: vertex n - i is vertex i reflected. */
    for (int i = 0; i <= n / 2; i++) {
        double angle = 2.0 * M_PI * i / n;
        x[i] = snap(cos(angle));
        y[i] = snap(sin(angle));
        if (i > 0 && n - i != i) {
            x[n - i] = x[i];
            y[n - i] = -y[i];
        }
    }
    if (n % 2 == 0)
        y[n / 2] = 0.0;
    for (int i = 0; i < n; i++) {
        geometry->fx[i] = y[i];
        geometry->fy[i] = -x[i];
    }
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        /* m solves f_i.m = f_j.m = 0, m_3 = 1; the determinant is sin(2 pi / n). */
        double det = x[i] * y[j] - x[j] * y[i];
        double m[3] = {1.0, 1.0, 1.0};
        if (n > 2) {
            m[0] = (x[j] - x[i]) / det;
            m[1] = (y[j] - y[i]) / det;
        }
        double norm = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        for (int k = 0; k < 3; k++)
            geometry->m_unit[i][k] = m[k] / norm;
    }
}

/* U_j = I - (1 + gamma) Theta^-1 f_j f_j^T / (f_j^T Theta^-1 f_j) with
 * Theta = diag(rho^2, rho^2, 1) and |f_j|_(x,y) = 1, so that
 * p+ = p - (1 + gamma) (f_j.p) (f_jx, f_jy, rho^2) / (1 + rho^2).
 * The batch kernel uses the same two coefficients in the same order. */
void chatter_apply_impact(const chatter_geometry *geometry, double rho, double gamma, int j,
                          double p[3])
{
    double rho2 = rho * rho;
    double c_rot = (1.0 + gamma) / (1.0 + rho2);
    double c_h = (1.0 + gamma) * rho2 / (1.0 + rho2);
    double fx = geometry->fx[j], fy = geometry->fy[j];
    double fp = fx * p[0] + fy * p[1] + p[2];
    p[0] -= c_rot * fp * fx;
    p[1] -= c_rot * fp * fy;
    p[2] -= c_h * fp;
}

void chatter_drop_stream_of(const double *point, chatter_drop_stream *stream)
{
    double physical[3] = {point[CHATTER_N], point[CHATTER_RHO], point[CHATTER_GAMMA]};
    stream->digest = is_rng_digest_values(physical, 3);
    stream->key = is_rng_key_from_seed((uint64_t)point[CHATTER_SEED]);
    stream->perturbation = point[CHATTER_PERTURBATION];
    stream->rod = point[CHATTER_N] == 2.0;
}

void chatter_drop_state(const chatter_drop_stream *stream, uint64_t sample, double q0[3],
                        double p0[3])
{
    double r[8];
    for (uint32_t block = 0; block < 2; block++) {
        is_rng_counter ctr = {{block, (uint32_t)sample, (uint32_t)stream->digest,
                               (uint32_t)(stream->digest >> 32)}};
        is_rng_counter bits = is_rng_philox4x32(ctr, stream->key);
        for (int k = 0; k < 4; k++)
            r[4 * block + k] = stream->perturbation * is_rng_uniform_open(bits.v[k]);
    }
    p0[0] = stream->rod ? 0.0 : r[0];
    p0[1] = r[1];
    p0[2] = -1.0;
    q0[0] = stream->rod ? 0.0 : r[2];
    q0[1] = r[3];
    q0[2] = 1.0 + r[4];
}

void chatter_initial_state(const double *point, uint64_t sample, double q0[3], double p0[3])
{
    chatter_drop_stream stream;
    chatter_drop_stream_of(point, &stream);
    chatter_drop_state(&stream, sample, q0, p0);
}

int chatter_is_pcc_velocity(const chatter_geometry *geometry, const double p[3])
{
    if (geometry->n < 3)
        return 0; /* the rod's only vertex pair is the whole body: that is CC */
    double threshold = CHATTER_PCC_TOLERANCE * fabs(p[2]);
    int first_small = 0, previous_small = 0;
    for (int j = 0; j < geometry->n; j++) {
        double fp = geometry->fx[j] * p[0] + geometry->fy[j] * p[1] + p[2];
        int small = fabs(fp) < threshold;
        if (j == 0)
            first_small = small;
        else if (small && previous_small)
            return 1;
        previous_small = small;
    }
    return previous_small && first_small;
}

/* The gate of the PCC decision: vertex `last` (hit before) and vertex `next` (about to be
 * hit) are adjacent and both move slower than CHATTER_PCC_TOLERANCE |p_3|. PCC can only set
 * in through such an alternation, and this costs one dot product per impact; only where it
 * holds is chatter_pcc_proven asked. The batch kernel evaluates the same expressions. */
static int pcc_before_impact(const chatter_geometry *geometry, int last, int next,
                             const double p[3])
{
    int n = geometry->n, step = abs(next - last);
    if (n < 3 || last < 0 || (step != 1 && step != n - 1))
        return 0;
    double threshold = CHATTER_PCC_TOLERANCE * fabs(p[2]);
    double last_fp = geometry->fx[last] * p[0] + geometry->fy[last] * p[1] + p[2];
    double next_fp = geometry->fx[next] * p[0] + geometry->fy[next] * p[1] + p[2];
    return fabs(last_fp) < threshold && -next_fp < threshold;
}

/* The first half of the gate: the vertex about to be hit approaches slower than
 * CHATTER_PCC_TOLERANCE |p_3| (never for the rod). It arms the flat-landing test
 * (chatter_flat_armed). */
static int slow_approach(const chatter_geometry *geometry, int next, const double p[3])
{
    double next_fp = geometry->fx[next] * p[0] + geometry->fy[next] * p[1] + p[2];
    return geometry->n >= 3 && -next_fp < CHATTER_PCC_TOLERANCE * fabs(p[2]);
}

static double dot(const chatter_geometry *g, int j, const double v[3])
{
    return g->fx[j] * v[0] + g->fy[j] * v[1] + v[2];
}

/* s_ij = f_i Theta^-1 f_j / f_j Theta^-1 f_j: what an impact at j does to the speed of i
 * (see chatter_chatter_possible in chatter_cone.c). */
static double coupling(const chatter_geometry *g, int i, int j, double rho2)
{
    return (g->fx[i] * g->fx[j] + g->fy[i] * g->fy[j] + rho2) / (1.0 + rho2);
}

/* Margins of the proof below against rounding: the pair's eigenvalues distinct by more
 * than rounding, the speeds and heights of the state known to PROOF_SLACK of its largest
 * component (2^-48: 16 ulps; the state after a few hundred impacts carries far less
 * error relative to its own size, being rescaled), and the Zeno time bound kept below
 * half of any other vertex's landing time. PROOF_STEPS of the pair's impacts are summed
 * one by one before the closed-form bound takes the rest: near a double root the bound
 * from the first impact is loose by far (lambda_2 / lambda_1 near 1, w_1 small). */
#define PROOF_ROOT_GAP 1e-9
#define PROOF_SLACK 0x1p-48
#define PROOF_STEPS 64

/* The pair's alternation from speeds x_0 (the vertex that rose last, divided by gamma) and
 * x_1 > 0 (the one coming down), with w_1 = x_1 - lambda_2 x_0 > 0: bounds on the sum of
 * its flight times in units of the first one (t_1 = 1) and on the sum of its speeds x_k,
 * k >= 1 (see chatter_pcc_proven). 0 where the numbers do not bear it out. */
typedef struct pair_run {
    double lambda1, lambda2, c, gamma;
} pair_run;

static int pair_bounds(const pair_run *r, double x0, double x1, double *times, double *speeds)
{
    double t = 1.0, x_prev = x0, x = x1;
    *times = 1.0;
    *speeds = x1;
    for (int k = 1; k <= PROOF_STEPS; k++) { /* the (k + 1)-th impact, one by one */
        double x_next = r->c * x - r->gamma * x_prev;
        if (!(x_next > 0.0))
            return 0;
        t *= r->gamma * x_prev / x_next;
        *times += t;
        *speeds += x_next;
        x_prev = x;
        x = x_next;
    }
    /* the rest in closed form, from (x_prev, x) and the flight t */
    double w = x - r->lambda2 * x_prev, ratio = r->lambda2 / r->lambda1;
    if (!(w > PROOF_ROOT_GAP * x))
        return 0;
    double a = w / (r->lambda1 - r->lambda2);
    *times += t * x_prev * x * r->lambda2 / (w * w * (1.0 - ratio));
    *speeds += (a + fmax(x_prev - a, 0.0)) * r->lambda1 / (1.0 - r->lambda1);
    return isfinite(*times) && isfinite(*speeds);
}

/* Why PCC is decided here. Let A = last be the vertex just hit (at the plane, moving up at
 * b = f_A.p >= 0) and B = next its neighbour (height h_B, moving down at x_1 = -f_B.p > 0).
 * Impacts at a pair act on its two speeds alone (chatter_chatter_possible's formula with
 * s = s_AB < 0): after B is hit it moves up at gamma x_1 and A moves at b - c x_1,
 * c = (1 + gamma)(-s). So while nothing else is hit, the speeds at which the pair's
 * vertices arrive at their impacts, x_1, x_2, ..., follow
 *     x_{k+1} = c x_k - gamma x_{k-1},   x_0 = b / gamma,
 * and the alternation goes on exactly as long as they stay > 0. With real roots
 * lambda_1 > lambda_2 > 0 of L^2 - c L + gamma (c^2 > 4 gamma), w_k = x_k - lambda_2 x_{k-1}
 * obeys w_{k+1} = lambda_1 w_k; so w_1 > 0 gives x_k >= w_k = w_1 lambda_1^(k-1) > 0 for ever
 * (with complex roots, or w_1 <= 0, the x_k change sign: the alternation dies out, and the
 * drop goes on). The flight before the impact at x_{k+1} lasts t_{k+1} = gamma x_{k-1} t_k /
 * x_{k+1} (the other vertex of the pair rises at gamma x_{k-1}, t_1 = h_B / x_1), so
 *     t_{k+1} = t_1 gamma^k x_0 x_1 / (x_k x_{k+1}) <= t_1 (x_0 x_1 lambda_1 / w_1^2)
 *               (lambda_2 / lambda_1)^k,
 * and all of them together last at most T = t_1 (1 + x_0 x_1 lambda_2 / (w_1^2 (1 -
 * lambda_2 / lambda_1))) (pair_bounds sums the first PROOF_STEPS exactly and bounds the
 * rest so): infinitely many impacts in finite time, the pair's speeds going to 0
 * (lambda_1 < 1). Meanwhile the impact at speed x_k changes the speed of any other vertex
 * m by at most (1 + gamma) |s_m.| x_k, and p_3 by c_h x_k, with sum_k x_k <= (a + max(x_0 -
 * a, 0)) lambda_1 / (1 - lambda_1), a = w_1 / (lambda_1 - lambda_2) (x_k = a lambda_1^k + (x_0
 * - a) lambda_2^k). If that keeps p_3 < 0 and no other vertex can come down its height
 * within 2 T, nothing interrupts the pair: PCC, proven for the state as simulated, with the
 * state's rounding taken against it (PROOF_SLACK). */
int chatter_pcc_proven(const chatter_geometry *g, double rho2, double gamma, int last,
                       int next, const double q[3], const double p[3])
{
    if (g->n < 3 || last < 0 || next < 0 || last == next)
        return 0;
    double s = coupling(g, last, next, rho2), c = (1.0 + gamma) * -s, disc = c * c - 4.0 * gamma;
    if (!(s < 0.0) || !(disc > PROOF_ROOT_GAP * c * c))
        return 0;
    double lambda1 = 0.5 * (c + sqrt(disc));
    pair_run run = {.lambda1 = lambda1, .lambda2 = gamma / lambda1, .c = c, .gamma = gamma};
    double p_slack = PROOF_SLACK * fmax(fabs(p[0]), fmax(fabs(p[1]), fabs(p[2])));
    double q_slack = PROOF_SLACK * fmax(fabs(q[0]), fmax(fabs(q[1]), fabs(q[2])));
    /* The speeds as rounding allows: the flight times grow as x_1 falls and x_0 grows, the
     * sum of speeds the other way round. */
    double v_next = -dot(g, next, p), v_last = fabs(dot(g, last, p));
    double x1 = v_next - p_slack, x0 = (v_last + p_slack) / gamma;
    double times, speeds, unused;
    if (!(lambda1 < 1.0) || !(x1 > 0.0) || !(x1 - run.lambda2 * x0 > PROOF_ROOT_GAP * x1) ||
        !pair_bounds(&run, x0, x1, &times, &unused) ||
        !pair_bounds(&run, fmax(v_last - p_slack, 0.0) / gamma, v_next + p_slack, &unused,
                     &speeds))
        return 0;
    double zeno = (fmax(dot(g, next, q), 0.0) + q_slack) / x1 * times;
    double c_h = (1.0 + gamma) * rho2 / (1.0 + rho2);
    if (!(2.0 * c_h * speeds < -p[2]) || !isfinite(zeno))
        return 0;
    for (int m = 0; m < g->n; m++) {
        if (m == last || m == next)
            continue;
        double push = (1.0 + gamma) *
                      fmax(fabs(coupling(g, m, last, rho2)), fabs(coupling(g, m, next, rho2)));
        double approach = -dot(g, m, p) + p_slack + push * speeds;
        if (approach > 0.0 && !(2.0 * zeno * approach < dot(g, m, q) - q_slack))
            return 0;
    }
    return 1;
}

/* Divides v by a power of two so that its largest component lies in [0.5, 1); returns
 * the exponent. Exact in binary, so it never changes a result, only keeps it normal. */
static int rescale(double v[3])
{
    double big = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(big > 0.0) || !isfinite(big))
        return 0;
    int e;
    frexp(big, &e);
    for (int k = 0; k < 3; k++)
        v[k] = ldexp(v[k], -e);
    return e;
}

void chatter_drop_reference(const chatter_geometry *geometry, double rho, double gamma,
                            int64_t max_impacts, const double q0[3], const double p0[3],
                            chatter_drop *result)
{
    chatter_drop_reference_certified(geometry, rho, gamma, max_impacts, NULL, q0, p0, result);
}

void chatter_drop_reference_certified(const chatter_geometry *geometry, double rho,
                                      double gamma, int64_t max_impacts,
                                      const chatter_region *region, const double q0[3],
                                      const double p0[3], chatter_drop *result)
{
    double q[3] = {q0[0], q0[1], q0[2]}, p[3] = {p0[0], p0[1], p0[2]};
    int q_exp = rescale(q), p_exp = rescale(p);
    int last = -1, lifted = 0, flat = 0, armed = chatter_flat_armed(geometry->n, gamma);
    double rho2 = rho * rho;
    result->impacts = 0;
    result->time = 0.0;
    result->pcc_at = -1;
    result->certified = 0;
    while (result->impacts < max_impacts) {
        int next = -1;
        double t_next = INFINITY;
        for (int j = 0; j < geometry->n; j++) {
            if (j == last)
                continue;
            double fp = geometry->fx[j] * p[0] + geometry->fy[j] * p[1] + p[2];
            if (!(fp < 0.0))
                continue;
            double fq = geometry->fx[j] * q[0] + geometry->fy[j] * q[1] + q[2];
            double t = fq > 0.0 ? fq / -fp : 0.0; /* rounding can put q just past contact */
            if (t < t_next) {
                t_next = t;
                next = j;
            }
        }
        if (next < 0) {
            lifted = 1; /* nothing approaches the plane any more */
            break;
        }
        /* decided on the state before this impact; the drop ends with the impact */
        armed |= slow_approach(geometry, next, p);
        int pcc = pcc_before_impact(geometry, last, next, p) &&
                  chatter_pcc_proven(geometry, rho2, gamma, last, next, q, p);
        double qz_before = q[2];
        for (int k = 0; k < 3; k++)
            q[k] += t_next * p[k];
        chatter_apply_impact(geometry, rho, gamma, next, p);
        result->impacts++;
        result->time += ldexp(t_next, q_exp - p_exp);
        last = next;
        flat = armed && chatter_lands_flat(qz_before, q[2]);
        lifted = p[2] >= 0.0; /* condition (18) fails: the body lifts off */
        if (pcc)
            result->pcc_at = result->impacts - 1; /* what follows is undecidable */
        if (pcc || flat || lifted)
            break;
        q_exp += rescale(q);
        p_exp += rescale(p);
        if (region &&
            (result->impacts % CHATTER_CERTIFY_EVERY == 0 || result->impacts == max_impacts) &&
            chatter_region_contains(geometry, region, last, p)) {
            result->certified = 1;
            break;
        }
    }
    result->outcome = result->pcc_at >= 0 ? CHATTER_PCC
                      : flat              ? CHATTER_FLAT
                      : lifted            ? CHATTER_ICC
                                          : CHATTER_CC;
    result->certified &= result->outcome == CHATTER_CC;
    for (int k = 0; k < 3; k++) {
        result->q[k] = q[k];
        result->p[k] = p[k];
    }
}
