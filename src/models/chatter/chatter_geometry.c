/* chatter_geometry.c: the n-gon's contact geometry, the impact map, the random initial
 * drops, the end-state classifier, and a plain scalar simulation of one drop (the
 * reference the vectorised kernel in chatter_batch.c is tested against). */
#include "chatter.h"

#include <math.h>
#include <stdlib.h>

#include "../../core/rng.h"

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

/* The in-flight PCC test: vertex `last` (hit before) and vertex `next` (about to be
 * hit) are adjacent and both move slower than CHATTER_PCC_TOLERANCE |p_3|. PCC can only
 * set in through such an alternation, and this costs one dot product per impact. The
 * batch kernel evaluates the same expressions. */
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
    int last = -1, lifted = 0;
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
        if (result->pcc_at < 0 && pcc_before_impact(geometry, last, next, p))
            result->pcc_at = result->impacts;
        for (int k = 0; k < 3; k++)
            q[k] += t_next * p[k];
        chatter_apply_impact(geometry, rho, gamma, next, p);
        result->impacts++;
        result->time += ldexp(t_next, q_exp - p_exp);
        last = next;
        if (p[2] >= 0.0) {
            lifted = 1; /* condition (18) fails: the body lifts off */
            break;
        }
        q_exp += rescale(q);
        p_exp += rescale(p);
        if (region && result->pcc_at < 0 &&
            (result->impacts % CHATTER_CERTIFY_EVERY == 0 || result->impacts == max_impacts) &&
            chatter_region_contains(geometry, region, last, p)) {
            result->certified = 1;
            break;
        }
    }
    if (!lifted && result->pcc_at < 0 && chatter_is_pcc_velocity(geometry, p))
        result->pcc_at = result->impacts;
    result->outcome = result->pcc_at >= 0 ? CHATTER_PCC : lifted ? CHATTER_ICC : CHATTER_CC;
    result->certified &= result->outcome == CHATTER_CC;
    for (int k = 0; k < 3; k++) {
        result->q[k] = q[k];
        result->p[k] = p[k];
    }
}
