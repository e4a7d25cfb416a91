/* The layout plan's optimization problem, apart from the IR (plan_solve.c).
 *
 * Each variable v (a value of the graph) takes one of nlab[v] labels (its
 * stored layout; label 0 is the layout as written). A use of a value asks
 * for it in some layout, a key local to the value: keys 0 .. nlab-1 are the
 * value's own labels, keys past them layouts it cannot be stored in. What a
 * use asks for may depend on the label of the variable that uses it (an
 * operator computing its result in layout L reads its operands in the
 * layouts L demands). The value pays, once per distinct key its uses ask
 * for other than its label, the cost of one rewrite from that label to that
 * key: uses asking the same layout share a rewrite (and keys a value says
 * share one, under a label: share). The plan minimizes the
 * unary costs plus those payments.
 *
 * With at most two labels per value, and every layout asked of a value
 * asked when its user takes its label 1 (or every one when it takes label
 * 0, as when users ask their own layout), the payment of a shared rewrite
 * is c * (value in the other label) * OR(users): a term a minimum s-t cut
 * represents with one extra node per value and layout, and a maximum flow
 * (Dinic) finds the optimum. Otherwise the payment is a term over a value
 * and all its users that no cut represents. The solver first eliminates
 * variables one at a time (dynamic programming over an elimination order,
 * exact, linear on the graphs of models) while its tables stay small, then
 * tries the cut, then elimination with wider tables; past the limit, it
 * improves the best assignment it has found by local moves and says the
 * answer is not proven optimal. */
#ifndef LOPT_PLAN_SOLVE_H
#define LOPT_PLAN_SOLVE_H

#include <stdint.h>

#define PLAN_INF (INT64_MAX / 8)

typedef struct PlanUse {
    int user;             /* the variable whose label decides the key, or -1 */
    int *key;             /* user >= 0: the key asked for under each of its labels; else key[0] */
} PlanUse;

typedef struct PlanVar {
    int nlab;             /* labels, at least 1 */
    int nkey;             /* keys, at least nlab */
    int64_t *unary;       /* [nlab]: cost of each label (PLAN_INF: impossible) */
    int64_t *rewrite;     /* [nlab * nkey]: a rewrite from label l to key k (k == store(l): unused) */
    int *store;           /* [nlab]: the key label l holds the value in (NULL: key l); two labels may
                             store alike and differ in what their users are asked (a reduction that
                             reads its operand in another layout) */
    int *share;           /* [nlab * nkey] or NULL: under label l, a rewrite to key k is the one to
                             key share[l * nkey + k], written once for every use asking either (a
                             permute_dims asks a key of its own, free where the rewrite only permutes
                             the axes, and otherwise the very rewrite others read); NULL: k itself */
    PlanUse *uses;
    int nuses;
} PlanVar;

typedef struct PlanProblem {
    PlanVar *vars;
    int n;
} PlanProblem;

typedef struct PlanResult {
    int *label;           /* [n] */
    int64_t cost;
    int64_t bound;        /* a lower bound on the optimum (== cost when exact) */
    int exact;            /* the optimum, proven */
    int method;           /* PLAN_CUT, PLAN_ELIMINATION or PLAN_LOCAL (not exact) */
} PlanResult;

enum { PLAN_CUT = 1, PLAN_ELIMINATION, PLAN_LOCAL };

/* The widest table elimination builds before the cut is tried. */
#define PLAN_SMALL_CELLS ((int64_t)1 << 12)

/* Solves p with tables of at most max_cells entries (0: a default of 2^22):
 * elimination while its tables stay under PLAN_SMALL_CELLS, else a minimum
 * cut where the problem is one, else elimination up to max_cells, else
 * local moves. Fills r (r->label is malloc'd; free it). Returns 0, or -1
 * when no assignment has a finite cost. */
int plan_solve(const PlanProblem *p, int64_t max_cells, PlanResult *r);
/* The same by one method only (PLAN_CUT: -2 when p is not a cut problem;
 * PLAN_ELIMINATION: no cut), or any (0). */
int plan_solve_by(const PlanProblem *p, int64_t max_cells, int method, PlanResult *r);

/* The cost of an assignment, by the definition above. */
int64_t plan_cost(const PlanProblem *p, const int *label);

#endif
