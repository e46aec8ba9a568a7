/* chatter_cone.c: the certificates of complete chatter. For n >= 3 the paper's search
 * for an effectively invariant cone (Sec. 4.3); for the rod its exact condition from the
 * single matrix U_0 P(pi) (Theorem 1).
 *
 * Cones live in velocity space and are kept as convex polygons in the plane p_3 = -1
 * (a point (x, y) stands for the ray through (x, y, -1)). An impact at vertex 0 followed
 * by one at j is possible only for p in the cone C_j spanned by m_{j-1,j}, m_{j,j+1},
 * -m_{0,1}, -m_{n-1,0}; between them the velocity maps by A_j = U_0 P(-2 pi j / n)
 * (relabelled so that the vertex hit is always 0). Starting from the ray -U_0 u_3, each
 * round clips the candidate K by every C_j, maps the pieces by A_j, and takes the convex
 * hull of K and the images. A mapped generator with p_3 >= 0 means no such cone exists
 * (condition (18) fails); a round adding less than CHATTER_CONE_EPSILON of solid angle
 * means K is (to that accuracy) effectively invariant: CC or PCC is certified. */
#include "chatter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct point2 {
    double x, y;
} point2;

/* The work arrays of one search, sized CHATTER_CONE_MAX_VERTICES. */
struct chatter_cone_work {
    point2 *hull, *candidates, *clip_a, *clip_b;
    size_t hull_count, candidate_count;
};

chatter_cone_work *chatter_cone_work_create(void)
{
    chatter_cone_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    /* candidates: the hull and n - 1 clipped images of at most hull + 4 vertices each;
     * the monotone chain needs up to twice as many places for its output */
    size_t n = CHATTER_CONE_MAX_VERTICES, candidates = (n + 8) * (CHATTER_MAX_VERTICES + 1);
    w->hull = malloc(2 * candidates * sizeof *w->hull);
    w->candidates = malloc(candidates * sizeof *w->candidates);
    w->clip_a = malloc((n + 8) * sizeof *w->clip_a);
    w->clip_b = malloc((n + 8) * sizeof *w->clip_b);
    if (!w->hull || !w->candidates || !w->clip_a || !w->clip_b) {
        chatter_cone_work_free(w);
        return NULL;
    }
    return w;
}

void chatter_cone_work_free(chatter_cone_work *w)
{
    if (!w)
        return;
    free(w->hull);
    free(w->candidates);
    free(w->clip_a);
    free(w->clip_b);
    free(w);
}

/* --- planar geometry ------------------------------------------------------------- */

static double cross2(point2 o, point2 a, point2 b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

static int by_x_then_y(const void *pa, const void *pb)
{
    const point2 *a = pa, *b = pb;
    return a->x < b->x ? -1 : a->x > b->x ? 1 : a->y < b->y ? -1 : a->y > b->y ? 1 : 0;
}

/* Andrew's monotone chain: the hull of points[0 .. count) into out (counter-clockwise,
 * no collinear points); returns its size. out must hold count + 1 points. */
static size_t convex_hull(point2 *points, size_t count, point2 *out)
{
    if (count < 3) {
        memcpy(out, points, count * sizeof *points);
        return count;
    }
    qsort(points, count, sizeof *points, by_x_then_y);
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        while (k >= 2 && cross2(out[k - 2], out[k - 1], points[i]) <= 0.0)
            k--;
        out[k++] = points[i];
    }
    for (size_t i = count - 1, lower = k + 1; i-- > 0;) {
        while (k >= lower && cross2(out[k - 2], out[k - 1], points[i]) <= 0.0)
            k--;
        out[k++] = points[i];
    }
    return k - 1;
}

/* Clips a convex polygon by a x + b y + c >= 0 (Sutherland-Hodgman); returns the size. */
static size_t clip(const point2 *in, size_t count, double a, double b, double c, point2 *out)
{
    if (count == 1) { /* a single ray: in or out */
        if (a * in[0].x + b * in[0].y + c >= 0.0) {
            out[0] = in[0];
            return 1;
        }
        return 0;
    }
    size_t made = 0;
    for (size_t i = 0; i < count; i++) {
        point2 p = in[i], q = in[(i + 1) % count];
        double fp = a * p.x + b * p.y + c, fq = a * q.x + b * q.y + c;
        if (fp >= 0.0)
            out[made++] = p;
        if ((fp >= 0.0) != (fq >= 0.0) && count > 1) {
            double s = fp / (fp - fq);
            out[made++] = (point2){p.x + s * (q.x - p.x), p.y + s * (q.y - p.y)};
        }
    }
    return made;
}

/* The solid angle of the cone over a convex polygon in the plane p_3 = -1, as a fan of
 * spherical triangles (Van Oosterom and Strackee). */
static double solid_angle(const point2 *poly, size_t count)
{
    if (count < 3)
        return 0.0;
    double a[3] = {poly[0].x, poly[0].y, -1.0}, la = sqrt(a[0] * a[0] + a[1] * a[1] + 1.0);
    double total = 0.0;
    for (size_t i = 1; i + 1 < count; i++) {
        double b[3] = {poly[i].x, poly[i].y, -1.0}, c[3] = {poly[i + 1].x, poly[i + 1].y, -1.0};
        double lb = sqrt(b[0] * b[0] + b[1] * b[1] + 1.0), lc = sqrt(c[0] * c[0] + c[1] * c[1] + 1.0);
        double triple = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                        a[2] * (b[0] * c[1] - b[1] * c[0]);
        double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        double ac = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
        double bc = b[0] * c[0] + b[1] * c[1] + b[2] * c[2];
        total += 2.0 * atan2(fabs(triple), la * lb * lc + ab * lc + ac * lb + bc * la);
    }
    return total;
}

/* --- the cones C_j and the maps A_j ------------------------------------------------ */

typedef struct half_plane {
    double a, b, c; /* a x + b y + c >= 0 on the plane p_3 = -1 */
} half_plane;

/* The facets of the cone spanned by four generators: a pair spans a facet when the other
 * two lie on one side of its plane; the inward normal n gives n . (x, y, -1) >= 0. */
static int cone_facets(const double g[4][3], half_plane *facets)
{
    int made = 0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            double n[3] = {g[i][1] * g[j][2] - g[i][2] * g[j][1],
                           g[i][2] * g[j][0] - g[i][0] * g[j][2],
                           g[i][0] * g[j][1] - g[i][1] * g[j][0]};
            double scale = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (!(scale > 1e-14))
                continue;
            int pos = 0, neg = 0;
            for (int k = 0; k < 4; k++) {
                if (k == i || k == j)
                    continue;
                double d = (n[0] * g[k][0] + n[1] * g[k][1] + n[2] * g[k][2]) / scale;
                pos += d > 1e-12;
                neg += d < -1e-12;
            }
            if (pos && neg)
                continue;
            double sign = neg ? -1.0 : 1.0;
            facets[made++] = (half_plane){sign * n[0], sign * n[1], -sign * n[2]};
        }
    return made;
}

static void map_velocity(const chatter_geometry *g, double rho, double gamma, double angle,
                         const double p[3], double out[3])
{
    double cs = cos(angle), sn = sin(angle);
    out[0] = cs * p[0] - sn * p[1];
    out[1] = sn * p[0] + cs * p[1];
    out[2] = p[2];
    chatter_apply_impact(g, rho, gamma, 0, out);
}

chatter_cone_answer chatter_cone_search(const chatter_geometry *g, double rho, double gamma,
                                        int max_rounds, chatter_cone_work *w, int *rounds)
{
    const int n = g->n;
    *rounds = 0;
    double m[CHATTER_MAX_VERTICES][3];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            m[i][k] = g->m_unit[i][k] / g->m_unit[i][2]; /* m_{i,i+1}, with m_3 = 1 */
    half_plane facets[CHATTER_MAX_VERTICES][6];
    int facet_count[CHATTER_MAX_VERTICES];
    for (int j = 1; j < n; j++) {
        double gen[4][3];
        for (int k = 0; k < 3; k++) {
            gen[0][k] = m[j - 1][k];  /* m_{j-1,j} */
            gen[1][k] = m[j][k];      /* m_{j,j+1} */
            gen[2][k] = -m[0][k];     /* -m_{0,1} */
            gen[3][k] = -m[n - 1][k]; /* -m_{n-1,0} */
        }
        facet_count[j] = cone_facets(gen, facets[j]);
    }
    /* K_0: the ray -U_0 u_3 */
    double up[3] = {0.0, 0.0, 1.0};
    chatter_apply_impact(g, rho, gamma, 0, up);
    if (!(-up[2] < 0.0))
        return CHATTER_CONE_NONE;
    w->hull[0] = (point2){-up[0] / up[2], -up[1] / up[2]}; /* (-U_0 u_3) / p_3 */
    w->hull_count = 1;
    double angle_before = 0.0;
    for (int round = 1; round <= max_rounds; round++) {
        *rounds = round;
        size_t count = 0;
        memcpy(w->candidates, w->hull, w->hull_count * sizeof *w->hull);
        count = w->hull_count;
        for (int j = 1; j < n; j++) {
            size_t pieces = w->hull_count;
            memcpy(w->clip_a, w->hull, pieces * sizeof *w->hull);
            for (int f = 0; f < facet_count[j] && pieces > 0; f++) {
                pieces = clip(w->clip_a, pieces, facets[j][f].a, facets[j][f].b, facets[j][f].c,
                              w->clip_b);
                memcpy(w->clip_a, w->clip_b, pieces * sizeof *w->clip_b);
            }
            for (size_t v = 0; v < pieces; v++) {
                double p[3] = {w->clip_a[v].x, w->clip_a[v].y, -1.0}, q[3];
                map_velocity(g, rho, gamma, -2.0 * M_PI * j / n, p, q);
                if (!(q[2] < 0.0))
                    return CHATTER_CONE_NONE; /* a generator leaves p_3 < 0 */
                w->candidates[count++] = (point2){q[0] / -q[2], q[1] / -q[2]};
            }
        }
        w->hull_count = convex_hull(w->candidates, count, w->hull);
        if (w->hull_count >= CHATTER_CONE_MAX_VERTICES)
            return CHATTER_CONE_INCONCLUSIVE;
        double angle = solid_angle(w->hull, w->hull_count);
        /* from a ray the first rounds only open the cone up: judge once it has area */
        if (round >= 2 && w->hull_count >= 3 && angle - angle_before < CHATTER_CONE_EPSILON)
            return CHATTER_CONE_FOUND;
        angle_before = angle;
    }
    return CHATTER_CONE_INCONCLUSIVE;
}

size_t chatter_cone_polygon(const chatter_cone_work *w, double (*points)[2], size_t capacity)
{
    size_t n = w->hull_count < capacity ? w->hull_count : capacity;
    for (size_t i = 0; i < n; i++) {
        points[i][0] = w->hull[i].x;
        points[i][1] = w->hull[i].y;
    }
    return n;
}

/* The rod. Without phi_x its velocity is (p_y, p_z); the impacts alternate, and with the
 * relabelling every one is at vertex 0 = (1, 0) (f_0 = (0, -1, 1)) after the flip P(pi)
 * = diag(-1, 1). With c = (1 + gamma)/(1 + rho^2), chatter_apply_impact gives
 *     U_0 = [[1 - c, c], [c rho^2, 1 - c rho^2]],   A = U_0 P(pi) = [[c - 1, c],
 *                                                                    [-c rho^2, 1 - c rho^2]],
 * with trace T = c (1 - rho^2) and determinant c (1 + rho^2) - 1 = gamma. Complete chatter
 * is p_z < 0 after every impact, p_k = A^k p_1. By Theorem 1 (an invariant proper cone
 * exists iff the spectral radius is an eigenvalue, dominant), and since det A = gamma > 0:
 * complex eigenvalues (T^2 < 4 gamma) turn the velocity by a fixed angle per impact, so
 * p_z changes sign: ICC; real negative ones (T < 0) flip it every impact: ICC; real
 * positive ones (T >= 2 sqrt(gamma)) leave the cone between the eigenvectors invariant and
 * p_k tends to the dominant eigenvector v_1 = (c, 1 + lambda_1 - c), which must point into
 * the approaching half-space (a representative with p_z < 0: v_1z != 0). So CC iff
 * T >= 2 sqrt(gamma) and 1 + lambda_1 - c != 0. (tests/unit/test_chatter.c checks it against
 * long simulations on a grid.) */
chatter_cone_answer chatter_rod_condition(double rho, double gamma)
{
    double rho2 = rho * rho, c = (1.0 + gamma) / (1.0 + rho2);
    double trace = c * (1.0 - rho2), disc = trace * trace - 4.0 * gamma;
    if (!(trace > 0.0) || disc < 0.0)
        return CHATTER_CONE_NONE;
    double lambda1 = 0.5 * (trace + sqrt(disc));
    return 1.0 + lambda1 - c != 0.0 ? CHATTER_CONE_FOUND : CHATTER_CONE_NONE;
}
