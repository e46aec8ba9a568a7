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
    /* cs p0 + (-sn) p1 is cs p0 - sn p1 bit for bit; written as a difference, GCC 12's
     * vectoriser fuses the pair into one FMADDSUB despite -ffp-contract=off, which
     * changes the rounding (and so the bits) between builds with and without FMA */
    double cs = cos(angle), sn = sin(angle), minus_sn = -sn;
    out[0] = cs * p[0] + minus_sn * p[1];
    out[1] = sn * p[0] + cs * p[1];
    out[2] = p[2];
    chatter_apply_impact(g, rho, gamma, 0, out);
}

/* The facets of the cones C_j, j = 1 .. n-1, on the plane p_3 = -1. */
static void sequence_cones(const chatter_geometry *g, half_plane facets[][6], int *facet_count)
{
    const int n = g->n;
    double m[CHATTER_MAX_VERTICES][3];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            m[i][k] = g->m_unit[i][k] / g->m_unit[i][2]; /* m_{i,i+1}, with m_3 = 1 */
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
}

chatter_cone_answer chatter_cone_search(const chatter_geometry *g, double rho, double gamma,
                                        int max_rounds, chatter_cone_work *w, int *rounds)
{
    const int n = g->n;
    *rounds = 0;
    half_plane facets[CHATTER_MAX_VERTICES][6];
    int facet_count[CHATTER_MAX_VERTICES];
    sequence_cones(g, facets, facet_count);
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

/* --- the region that stops certified drops ------------------------------------------- */

/* Why a drop may stop once its relabelled post-impact velocity lies in Q.
 * The search's K is only effectively invariant: its last round still added up to
 * CHATTER_CONE_EPSILON of solid angle, so a velocity near the rim of K may map out of it
 * (the tests saw 1e-3; at n = 4, rho 0.3, gamma 0.1 the fixed point of A_1 lies 1e-4
 * beyond K's corner), and "in K" proves nothing. Nor is a polygon pushed out around K
 * invariant in one impact: A_1 there shears before it contracts, and moves (-2.2, -1.6),
 * 0.4 beyond that corner, 0.06 further out in x before pulling it in. So the check follows the
 * velocity for several impacts. Q is the polygon circumscribed about K along 32 equally
 * spaced normals, pushed out by a small fraction of K's size (the smallest of a few that
 * passes). region_returns clips Q by every C_j (each facet moved out by
 * CHATTER_REGION_SLACK) and maps the piece by A_j = U_0 P(-2 pi j / n); A_j is linear,
 * so the cone over a convex piece goes to the cone over the images of its vertices,
 * whose section is their convex hull (when all have p_3 < 0, which is checked). A piece
 * whose image lies CHATTER_REGION_MARGIN inside every edge of Q is back; any other is
 * followed on the same way, for at most REGION_DEPTH impacts in all (and a bounded
 * number of branches), else the check fails. Now take a drop whose velocity just after
 * an impact, relabelled, is p in Q. The next impact is at some j != 0, which requires p
 * in C_j (Lemma 3 of the paper, from the geometry of penetration-free configurations,
 * whatever q is), so the velocity after it is A_j p, in the image of the piece; and so on
 * along the branches the check followed: within REGION_DEPTH impacts the velocity is back
 * in Q, with p_3 < 0 after every impact on the way; by induction p_3 < 0 after every
 * impact, and the body never lifts off (CC; PCC is ruled out by chatter_pcc_possible).
 * The margins take care of the floating point: the simulated velocity differs from the
 * exact image by rounding (~1e-16 relative per impact, times the growth of at most 24
 * impacts), which the margin of 1e-9 inside every edge absorbs afresh at every return,
 * and a velocity that rounding puts just outside C_j is still in the relaxed C_j; the
 * rims of the pieces (clipping) carry rounding of the same size. tests/unit/test_chatter.c
 * simulates stopped drops on for 10^4 impacts over grids across the boundary, n = 2 .. 6:
 * none lifts off or turns PCC. */

static void region_of_polygon(const point2 *poly, size_t count, chatter_region *r)
{
    r->edges = 0;
    for (size_t i = 0; i < count; i++) {
        point2 p = poly[i], q = poly[(i + 1) % count];
        double ex = q.x - p.x, ey = q.y - p.y, len = sqrt(ex * ex + ey * ey);
        if (!(len > 0.0))
            continue;
        /* counter-clockwise: inside is to the left, -ey x + ex y + (ey p.x - ex p.y) >= 0 */
        r->a[r->edges] = -ey / len;
        r->b[r->edges] = ex / len;
        r->c[r->edges] = (ey * p.x - ex * p.y) / len;
        r->edges++;
    }
}

/* The polygon circumscribed about K along `count` equally spaced outward normals, each
 * edge pushed out by delta (the section of K plus a disc of radius delta, give or take
 * the corners); counter-clockwise. count <= CHATTER_REGION_MAX_EDGES. */
static void circumscribe(const point2 *hull, size_t hull_count, double delta, int count,
                         point2 *out)
{
    double nx[CHATTER_REGION_MAX_EDGES], ny[CHATTER_REGION_MAX_EDGES];
    double h[CHATTER_REGION_MAX_EDGES];
    for (int k = 0; k < count; k++) {
        double theta = 2.0 * M_PI * k / count;
        nx[k] = cos(theta);
        ny[k] = sin(theta);
        h[k] = -INFINITY;
        for (size_t v = 0; v < hull_count; v++)
            h[k] = fmax(h[k], nx[k] * hull[v].x + ny[k] * hull[v].y);
        h[k] += delta;
    }
    for (int k = 0; k < count; k++) { /* corner between the edges k and k + 1 */
        int l = (k + 1) % count;
        double det = nx[k] * ny[l] - ny[k] * nx[l];
        out[k] = (point2){(h[k] * ny[l] - ny[k] * h[l]) / det,
                          (nx[k] * h[l] - h[k] * nx[l]) / det};
    }
}

/* The check of the argument above: where the velocity goes from the convex polygon
 * poly (counter-clockwise) in up to `depth` more impacts. Each branch j clips poly by the
 * relaxed C_j and maps it by A_j; a branch ends where all of its image lies inside the
 * region r by the margin, and fails where a vertex leaves p_3 < 0 (or runs far off) or
 * where it is still not back after the last impact. *budget bounds the branches looked
 * at (0 left: the check fails). */
#define REGION_PIECE_MAX (CHATTER_REGION_MAX_EDGES + 8 * REGION_DEPTH + 8)
#define REGION_DEPTH 24

static int region_returns(const chatter_geometry *g, double rho, double gamma,
                          half_plane facets[][6], const int *facet_count, const point2 *poly,
                          size_t count, const chatter_region *r, int depth, long *budget)
{
    point2 piece[REGION_PIECE_MAX], scratch[REGION_PIECE_MAX];
    for (int j = 1; j < g->n; j++) {
        if (--*budget < 0)
            return 0;
        size_t pieces = count;
        memcpy(piece, poly, count * sizeof *poly);
        for (int f = 0; f < facet_count[j] && pieces > 0; f++) {
            half_plane h = facets[j][f];
            double slack = CHATTER_REGION_SLACK * sqrt(h.a * h.a + h.b * h.b);
            if (pieces + 2 > REGION_PIECE_MAX)
                return 0;
            pieces = clip(piece, pieces, h.a, h.b, h.c + slack, scratch);
            memcpy(piece, scratch, pieces * sizeof *scratch);
        }
        int back = 1;
        for (size_t v = 0; v < pieces; v++) {
            double p[3] = {piece[v].x, piece[v].y, -1.0}, q[3];
            map_velocity(g, rho, gamma, -2.0 * M_PI * j / g->n, p, q);
            if (!(q[2] < 0.0))
                return 0;
            double x = q[0] / -q[2], y = q[1] / -q[2];
            if (!(fabs(x) < 1e6 && fabs(y) < 1e6))
                return 0;
            piece[v] = (point2){x, y}; /* a linear map keeps the order of the vertices */
            for (int e = 0; e < r->edges && back; e++)
                back = r->a[e] * x + r->b[e] * y + r->c[e] >= CHATTER_REGION_MARGIN;
        }
        if (pieces == 0 || back)
            continue;
        if (depth <= 1 || !region_returns(g, rho, gamma, facets, facet_count, piece, pieces,
                                          r, depth - 1, budget))
            return 0;
    }
    return 1;
}

/* PCC at the vertices 0 and 1 alternates the impacts between them. Near its velocity ray
 * -m_{0,1} (both at rest), let u >= 0 be the speed of the vertex just hit and v < 0 that of
 * the other one, which is hit next; the impact there (U_1) makes them, relabelled,
 *     u' = -gamma v,   v' = u - (1 + gamma) s v,   s = f_0 Theta^-1 f_1 / f_1 Theta^-1 f_1
 *                                                    = (cos(2 pi / n) + rho^2) / (1 + rho^2),
 * and the alternation goes on only while v' < 0. With s >= 0 (every n >= 4; n = 3 with
 * rho^2 >= 1/2) v' > 0 at once: the pair cannot keep chattering, so no drop approaches
 * PCC (the paper's Lemma 4 finds the same: never for n >= 4). With s < 0 a drop may
 * alternate for a while and come within the PCC test's tolerance of the ray (it does, for
 * n = 3, rho 0.2, gamma 0.06, which has a cone: 4.6% of 20000 drops end PCC within 10^4
 * impacts, certified or not), so there a drop in the region is not yet proven CC. */
int chatter_pcc_possible(const chatter_geometry *g, double rho)
{
    if (g->n < 3)
        return 0;
    double cos1 = -g->fy[1]; /* x_1 = cos(2 pi / n) */
    return cos1 + rho * rho < 0.0;
}

/* In vertex speeds v_i = f_i.p an impact at j (v_j < 0) gives v_j' = -gamma v_j > 0 and
 *     v_i' = v_i - (1 + gamma) s_ij v_j,   s_ij = (cos(theta_i - theta_j) + rho^2) / (1 + rho^2)
 * (f_i Theta^-1 f_j over f_j Theta^-1 f_j). Where every s_ij >= 0 an impact only speeds
 * the other vertices up, so a vertex once hit moves up for ever and is never hit again:
 * after at most n impacts none approaches, and p_3, the mean of the v_i, is > 0. No drop
 * chatters, and the cone search answers `none` (n = 3, rho^2 >= 1/2: 3600 points, all). */
int chatter_chatter_possible(const chatter_geometry *g, double rho)
{
    double lowest = 1.0; /* min over k of cos(2 pi k / n) = x_k = -fy_k */
    for (int k = 1; k < g->n; k++)
        lowest = fmin(lowest, -g->fy[k]);
    return lowest + rho * rho < 0.0;
}

int chatter_region_possible(const chatter_geometry *g, double rho)
{
    return chatter_chatter_possible(g, rho) && !chatter_pcc_possible(g, rho);
}

int chatter_cone_region(const chatter_geometry *g, double rho, double gamma,
                        chatter_cone_work *w, chatter_region *region)
{
    region->edges = 0;
    if (g->n < 3 || w->hull_count < 3 || !chatter_region_possible(g, rho))
        return 0;
    half_plane facets[CHATTER_MAX_VERTICES][6];
    int facet_count[CHATTER_MAX_VERTICES];
    sequence_cones(g, facets, facet_count);
    /* the size of K, for the push-outs */
    double size = 0.0;
    for (size_t v = 0; v < w->hull_count; v++)
        for (size_t u = 0; u < v; u++)
            size = fmax(size, hypot(w->hull[v].x - w->hull[u].x, w->hull[v].y - w->hull[u].y));
    /* Smallest push-out first: the larger Q, the sooner a drop is in it, but the more of
     * Q's rim lies where A_j no longer pulls it in. */
    static const double push[] = {1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1};
    point2 poly[CHATTER_REGION_MAX_EDGES];
    chatter_region r;
    for (size_t k = 0; k < sizeof push / sizeof *push; k++) {
        circumscribe(w->hull, w->hull_count, push[k] * size, CHATTER_REGION_MAX_EDGES, poly);
        region_of_polygon(poly, CHATTER_REGION_MAX_EDGES, &r);
        long budget = 200000;
        if (r.edges == CHATTER_REGION_MAX_EDGES &&
            region_returns(g, rho, gamma, facets, facet_count, poly, CHATTER_REGION_MAX_EDGES,
                           &r, REGION_DEPTH, &budget)) {
            *region = r;
            return 1;
        }
    }
    return 0;
}

/* The rod (see chatter_rod_condition): on the line p_z = -1 of relabelled velocities,
 * Y = p_y / -p_z, the map A = U_0 P(pi) acts as a projective map with the fixed points
 * Y_k = c / (c - 1 - lambda_k) of its eigenvectors. With real eigenvalues lambda_1 >
 * lambda_2 > 0, Y_1 attracts every point but Y_2, each moving monotonically towards it
 * along its arc of the projective line (a circle: the line and Y = infinity, p_z = 0).
 * Every Y on Y_1's side of Y_2 gets there without crossing Y = infinity, so p_z < 0
 * after every impact: CC, exactly; every Y on the other side crosses it: ICC.
 * The region is that side, with CHATTER_REGION_MARGIN (relative) kept from Y_2: rounding
 * next to the repelling point could otherwise take a drop across it. */
int chatter_rod_region(double rho, double gamma, chatter_region *region)
{
    region->edges = 0;
    if (chatter_rod_condition(rho, gamma) != CHATTER_CONE_FOUND)
        return 0;
    double rho2 = rho * rho, c = (1.0 + gamma) / (1.0 + rho2);
    double trace = c * (1.0 - rho2), root = sqrt(trace * trace - 4.0 * gamma);
    double lambda1 = 0.5 * (trace + root), lambda2 = 0.5 * (trace - root);
    double d1 = c - 1.0 - lambda1, d2 = c - 1.0 - lambda2;
    /* a double root, or the repelling eigenvector at p_z = 0 (measure zero): no region */
    if (!(lambda1 - lambda2 > 1e-9 * lambda1) || !(fabs(d2) > 1e-9) || !(fabs(d1) > 1e-9))
        return 0;
    double y1 = c / d1, y2 = c / d2, side = y1 > y2 ? 1.0 : -1.0;
    region->edges = 1;
    region->a[0] = 0.0;
    region->b[0] = side; /* side (Y - Y_2) - margin >= 0 */
    region->c[0] = -side * y2 - CHATTER_REGION_MARGIN * (1.0 + fabs(y2));
    return 1;
}

int chatter_region_contains(const chatter_geometry *g, const chatter_region *r, int vertex,
                            const double p[3])
{
    if (r->edges == 0 || vertex < 0 || !(p[2] < 0.0))
        return 0;
    /* P(-2 pi vertex / n) p: the vertex hit becomes vertex 0 (f_0.p' = f_vertex.p) */
    double fx = g->fx[vertex], fy = g->fy[vertex];
    double x = -fy * p[0] + fx * p[1], y = -fx * p[0] - fy * p[1], w = -p[2];
    for (int e = 0; e < r->edges; e++)
        if (!(r->a[e] * x + r->b[e] * y + r->c[e] * w >= 0.0))
            return 0;
    return 1;
}

double chatter_point_certificate(const double *point, chatter_cone_work *work, int *rounds,
                                 chatter_region *region)
{
    int max_rounds = (int)point[CHATTER_CONE_ROUNDS], early_stop = point[CHATTER_EARLY_STOP] != 0;
    double rho = point[CHATTER_RHO], gamma = point[CHATTER_GAMMA];
    *rounds = 0;
    region->edges = 0;
    if (point[CHATTER_N] == 2.0) {
        if (early_stop)
            chatter_rod_region(rho, gamma, region);
        return chatter_rod_condition(rho, gamma);
    }
    if (max_rounds <= 0)
        return NAN;
    chatter_geometry geometry;
    chatter_geometry_init(&geometry, (int)point[CHATTER_N]);
    chatter_cone_answer answer =
        chatter_cone_search(&geometry, rho, gamma, max_rounds, work, rounds);
    /* The region's check is a proof of its own: it may also pass around the last cone of
     * a search that ran out of rounds (its cone still growing, slowly). Where no region can
     * exist (all of n = 3) nothing is looked at: early_stop costs nothing there. */
    if (answer != CHATTER_CONE_NONE && early_stop && chatter_region_possible(&geometry, rho))
        chatter_cone_region(&geometry, rho, gamma, work, region);
    return answer;
}
