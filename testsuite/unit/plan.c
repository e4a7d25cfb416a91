/* Unit test of the layout plan's solver (passes/plan_solve.c) against
 * exhaustive search. Random problems shaped like graphs: up to 12 values,
 * each used by later values (an operator reading its operands) or by the
 * function's result (a fixed use), some values with one label (parameters,
 * frozen calls), the others with 2 or 3 (the problem's width); keys past a
 * value's labels (layouts it cannot be stored in); labels a value cannot
 * take (an operator that cannot compute in that layout); labels that store
 * the value alike and differ only in what their users are asked. For each problem
 * every assignment is enumerated and costed by this file's own reading of
 * the definition in plan_solve.h; the solver must return an assignment of that
 * minimal cost, say it is exact, and plan_cost must agree; so must the minimum
 * cut alone where the problem is one, and elimination alone, and elimination
 * over tables of 16 cells where it succeeds (a value's payment is then
 * carried by chains of OR variables; a quarter of the problems have a value
 * every other one reads). A second solve
 * with tables of at most 4 cells (the fallback) must return a possible
 * assignment whose cost plan_cost and this file agree on, at least the
 * minimum, with a bound at most the minimum.
 *
 * usage: unit-plan [problems] [seed] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../passes/layout/plan_solve.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng_state >> 33) % n);
}

/* The definition, read independently of plan_solve.c. */
static int64_t brute_cost(const PlanProblem *p, const int *label)
{
    int64_t c = 0;
    for (int b = 0; b < p->n; b++) {
        const PlanVar *v = &p->vars[b];
        if (v->unary[label[b]] >= PLAN_INF)
            return PLAN_INF;
        c += v->unary[label[b]];
        for (int k = 0; k < v->nkey; k++) {
            if (k == (v->store ? v->store[label[b]] : label[b]))
                continue;
            /* paid once when some use asks k or a key that shares k's rewrite under b's label */
            int asked = 0;
            for (int u = 0; u < v->nuses && !asked; u++) {
                int q = v->uses[u].user < 0 ? v->uses[u].key[0] : v->uses[u].key[label[v->uses[u].user]];
                asked = q >= 0 && (v->share ? v->share[label[b] * v->nkey + q] : q) == k;
            }
            if (asked)
                c += v->rewrite[label[b] * v->nkey + k];
        }
    }
    return c;
}

static void make(PlanProblem *p, int n, int width, int graphlike, int hub)
{
    p->n = n;
    p->vars = calloc((size_t)n, sizeof *p->vars);
    for (int b = 0; b < n; b++) {
        PlanVar *v = &p->vars[b];
        v->nlab = rnd(4) == 0 ? 1 : width;
        v->nkey = v->nlab + (int)rnd(3);
        v->unary = calloc((size_t)v->nlab, sizeof *v->unary);
        for (int l = 0; l < v->nlab; l++)   /* label 0 rarely impossible: some problems have no answer */
            v->unary[l] = rnd(l ? 6 : 30) == 0 ? PLAN_INF : rnd(3) == 0 ? (int64_t)rnd(50) : 0;
        v->rewrite = calloc((size_t)(v->nlab * v->nkey), sizeof *v->rewrite);
        if (v->nlab > 1 && !graphlike && rnd(4) == 0) {   /* labels that store alike */
            v->store = calloc((size_t)v->nlab, sizeof *v->store);
            for (int l = 1; l < v->nlab; l++)
                v->store[l] = rnd(2) ? (int)rnd((uint32_t)l) : l;
        }
        int64_t bytes = rnd(5) == 0 ? 0 : 1 + rnd(64);   /* 0: a constant, rewritten for free */
        for (int i = 0; i < v->nlab * v->nkey; i++)
            v->rewrite[i] = bytes ? (bytes + rnd(32)) * 4096 + 1 : 0;
        if (v->nkey > 1 && rnd(5) == 0) {   /* keys that share a rewrite under some labels (a permute_dims' own key) */
            v->share = calloc((size_t)(v->nlab * v->nkey), sizeof *v->share);
            int k = 1 + (int)rnd((uint32_t)(v->nkey - 1)), to = (int)rnd((uint32_t)k);
            for (int i = 0; i < v->nlab * v->nkey; i++)
                v->share[i] = i % v->nkey == k && rnd(2) ? to : i % v->nkey;
        }
        int nu = hub && b == 0 ? n - 1 : (int)rnd(4);   /* a hub: a value every other one reads */
        v->uses = calloc((size_t)nu + 1, sizeof *v->uses);
        for (int u = 0; u < nu; u++) {
            PlanUse *use = &v->uses[v->nuses];
            int later = n - 1 - b;
            use->user = hub && b == 0 ? 1 + u : later > 0 && rnd(5) != 0 ? b + 1 + (int)rnd((uint32_t)later) : -1;
            int nl = use->user < 0 ? 1 : width;
            use->key = calloc((size_t)nl, sizeof *use->key);
            for (int l = 0; l < nl; l++)
                use->key[l] = rnd(8) == 0 ? -1 : (int)rnd((uint32_t)v->nkey);
            /* graph-like: a user asks its own layout (a label of both) or a fixed one */
            for (int l = 0; graphlike && use->user >= 0 && l < nl; l++)
                use->key[l] = l < v->nlab && rnd(6) ? l : use->key[0];
            v->nuses++;
        }
    }
}

static void drop(PlanProblem *p)
{
    for (int b = 0; b < p->n; b++) {
        for (int u = 0; u < p->vars[b].nuses; u++)
            free(p->vars[b].uses[u].key);
        free(p->vars[b].uses);
        free(p->vars[b].unary);
        free(p->vars[b].rewrite);
        free(p->vars[b].store);
        free(p->vars[b].share);
    }
    free(p->vars);
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 600;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    int fails = 0, nexact = 0, infeasible = 0, fallback_worse = 0, by_cut = 0, by_chain = 0;
    long long assignments = 0;
    for (int t = 0; t < count; t++) {
        PlanProblem p;
        int n = 1 + (int)rnd(12), width = 2 + (int)rnd(2), graphlike = rnd(2), hub = rnd(4) == 0;
        make(&p, n, width, graphlike, hub);
        int *a = calloc((size_t)n, sizeof *a), *best = calloc((size_t)n, sizeof *best);
        int64_t min = PLAN_INF;
        for (;;) {
            int64_t c = brute_cost(&p, a);
            assignments++;
            if (c < min) {
                min = c;
                memcpy(best, a, (size_t)n * sizeof *a);
            }
            int i = 0;
            while (i < n && ++a[i] == p.vars[i].nlab)
                a[i++] = 0;
            if (i == n)
                break;
        }
        PlanResult r;
        int rc = plan_solve(&p, 0, &r);
        if (min >= PLAN_INF) {
            infeasible++;
            if (rc != -1) {
                printf("problem %d: no assignment is possible, yet the solver returned %lld\n", t, (long long)r.cost);
                fails++;
            }
        } else if (rc != 0 || !r.exact || r.cost != min || brute_cost(&p, r.label) != min ||
                   plan_cost(&p, r.label) != min || r.bound != min) {
            printf("problem %d (%d values, width %d): minimum %lld, solver %lld (exact %d, its labels cost %lld, "
                   "plan_cost %lld)\n", t, n, width, (long long)min, (long long)r.cost, r.exact,
                   (long long)brute_cost(&p, r.label), (long long)plan_cost(&p, r.label));
            fails++;
        } else {
            nexact++;
        }
        free(r.label);
        /* each exact method alone: the cut where it applies, elimination with no cut */
        for (int k = 0; k < 2; k++) {
            int method = k ? PLAN_ELIMINATION : PLAN_CUT;
            rc = plan_solve_by(&p, 0, method, &r);
            if (rc == -2) {
                free(r.label);
                continue;
            }
            if (min >= PLAN_INF ? rc != -1 : rc != 0 || !r.exact || r.cost != min || brute_cost(&p, r.label) != min) {
                printf("problem %d (%d values, width %d): minimum %lld, %s alone %lld (exact %d, its labels cost "
                       "%lld)\n", t, n, width, (long long)min, k ? "elimination" : "the cut", (long long)r.cost, r.exact,
                       (long long)brute_cost(&p, r.label));
                fails++;
            }
            by_cut += !k && min < PLAN_INF;
            free(r.label);
        }
        /* elimination with tables of 16 cells: a value's payment over it and
         * its users is then mostly the chain of OR variables */
        rc = plan_solve_by(&p, 16, PLAN_ELIMINATION, &r);
        if (rc == 0 && r.exact) {
            by_chain++;
            if (r.cost != min || brute_cost(&p, r.label) != min) {
                printf("problem %d: minimum %lld, elimination over 16-cell tables %lld (its labels cost %lld)\n", t,
                       (long long)min, (long long)r.cost, (long long)brute_cost(&p, r.label));
                fails++;
            }
        }
        free(r.label);
        PlanResult f;
        rc = plan_solve(&p, 4, &f);
        if (min < PLAN_INF) {
            int64_t c = brute_cost(&p, f.label);
            if (rc == 0 && (c != f.cost || plan_cost(&p, f.label) != c || c < min || f.bound > min ||
                            (f.exact && c != min))) {
                printf("problem %d: the fallback's labels cost %lld, it says %lld (bound %lld, minimum %lld)\n", t,
                       (long long)c, (long long)f.cost, (long long)f.bound, (long long)min);
                fails++;
            }
            fallback_worse += rc != 0 || c > min;
        }
        free(f.label);
        free(a);
        free(best);
        drop(&p);
    }
    printf("unit-plan: %d problems (%lld assignments enumerated): %d optimal and proven (%d of them also "
           "by a minimum cut alone, all by elimination alone, %d by elimination over 16-cell tables), %d with no "
           "possible assignment, %d failures; the fallback (4-cell tables) was "
           "above the minimum on %d\n", count, assignments, nexact, by_cut, by_chain, infeasible, fails, fallback_worse);
    return fails != 0;
}
