/* Solving the layout plan's problem (plan.h) exactly: variable elimination.
 * Every term is a table over a few variables (a unary cost, or a value's
 * payment for its rewrites over the value and its users). Eliminating a
 * variable x joins the tables that mention x and keeps, for each assignment
 * of the others, the best label of x and its cost: the last table is the
 * optimum, and walking the eliminations backwards reads the labels off. The
 * order is greedy, smallest joined table first; on the graphs of models
 * (chains, diamonds, residual blocks) the tables stay a few labels wide. */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

static int64_t add_cost(int64_t a, int64_t b)
{
    return a >= PLAN_INF || b >= PLAN_INF || a + b >= PLAN_INF ? PLAN_INF : a + b;
}

/* What value b pays under the labels in label[] (users' labels included). */
static int64_t payment(const PlanVar *v, int lb, const int *label, char *seen)
{
    int64_t c = 0;
    memset(seen, 0, (size_t)v->nkey);
    for (int u = 0; u < v->nuses; u++) {
        const PlanUse *use = &v->uses[u];
        int k = use->user < 0 ? use->key[0] : use->key[label[use->user]];
        if (k < 0 || k == (v->store ? v->store[lb] : lb) || seen[k])
            continue;
        seen[k] = 1;
        c = add_cost(c, v->rewrite[lb * v->nkey + k]);
    }
    return c;
}

static int max_keys(const PlanProblem *p)
{
    int m = 1;
    for (int i = 0; i < p->n; i++)
        if (p->vars[i].nkey > m)
            m = p->vars[i].nkey;
    return m;
}

int64_t plan_cost(const PlanProblem *p, const int *label)
{
    char *seen = malloc((size_t)max_keys(p));
    int64_t c = 0;
    for (int i = 0; i < p->n; i++) {
        const PlanVar *v = &p->vars[i];
        c = add_cost(c, v->unary[label[i]]);
        c = add_cost(c, payment(v, label[i], label, seen));
    }
    free(seen);
    return c;
}

/* ---- tables ---- */

typedef struct Table {
    int *scope;           /* variables, the first varying fastest */
    int n;
    int64_t size;
    int64_t *cost;
    int dead;
} Table;

typedef struct Elim {
    int x;
    int *scope;           /* the joined table's other variables */
    int n;
    unsigned char *best;  /* per assignment of scope: x's best label */
} Elim;

typedef struct Solver {
    const PlanProblem *p;
    Table *t;
    int nt, cap;
    int64_t max_cells;
} Solver;

static int64_t cells(const PlanProblem *p, const int *scope, int n, int64_t limit)
{
    int64_t s = 1;
    for (int i = 0; i < n; i++) {
        s *= p->vars[scope[i]].nlab;
        if (s > limit)
            return limit + 1;
    }
    return s;
}

static Table *table_add(Solver *S, int *scope, int n)
{
    if (S->nt == S->cap) {
        S->cap = S->cap ? S->cap * 2 : 64;
        S->t = realloc(S->t, (size_t)S->cap * sizeof *S->t);
    }
    Table *t = &S->t[S->nt++];
    t->scope = scope;
    t->n = n;
    t->size = cells(S->p, scope, n, INT64_MAX / 4);
    t->cost = calloc((size_t)t->size, sizeof *t->cost);
    t->dead = 0;
    return t;
}

/* Steps the mixed-radix counter a over scope; returns 0 after the last. */
static int step(const PlanProblem *p, const int *scope, int n, int *a)
{
    for (int i = 0; i < n; i++) {
        if (++a[i] < p->vars[scope[i]].nlab)
            return 1;
        a[i] = 0;
    }
    return 0;
}

/* The value b's payment as a table over b and its users. */
static int payment_table(Solver *S, int b, int *label)
{
    const PlanVar *v = &S->p->vars[b];
    int *scope = malloc(((size_t)v->nuses + 1) * sizeof *scope), n = 0;
    scope[n++] = b;
    for (int u = 0; u < v->nuses; u++) {
        int w = v->uses[u].user, dup = 0;
        for (int j = 0; j < n; j++)
            dup |= scope[j] == w;
        if (w >= 0 && !dup)
            scope[n++] = w;
    }
    if (cells(S->p, scope, n, S->max_cells) > S->max_cells) {
        free(scope);
        return -1;
    }
    Table *t = table_add(S, scope, n);
    int *a = calloc((size_t)n, sizeof *a);
    char *seen = malloc((size_t)v->nkey);
    int64_t i = 0;
    do {
        for (int j = 0; j < n; j++)
            label[scope[j]] = a[j];
        t->cost[i++] = payment(v, a[0], label, seen);
    } while (step(S->p, scope, n, a));
    free(a);
    free(seen);
    return 0;
}

static int64_t table_min(const Table *t)
{
    int64_t m = PLAN_INF;
    for (int64_t i = 0; i < t->size; i++)
        if (t->cost[i] < m)
            m = t->cost[i];
    return m;
}

/* The union of the scopes of the live tables that mention x, x left out. */
static int joined_scope(const Solver *S, int x, int *out, char *in)
{
    int n = 0;
    for (int k = 0; k < S->nt; k++) {
        const Table *t = &S->t[k];
        int has = 0;
        for (int i = 0; i < t->n && !t->dead; i++)
            has |= t->scope[i] == x;
        if (!has)
            continue;
        for (int i = 0; i < t->n; i++)
            if (t->scope[i] != x && !in[t->scope[i]]) {
                in[t->scope[i]] = 1;
                out[n++] = t->scope[i];
            }
    }
    for (int i = 0; i < n; i++)
        in[out[i]] = 0;
    return n;
}

/* The index into t of the assignment label[] gives its scope. */
static int64_t index_of(const PlanProblem *p, const Table *t, const int *label)
{
    int64_t idx = 0, mul = 1;
    for (int i = 0; i < t->n; i++) {
        idx += label[t->scope[i]] * mul;
        mul *= p->vars[t->scope[i]].nlab;
    }
    return idx;
}

static void eliminate(Solver *S, int x, int *scope, int n, Elim *e, int *label)
{
    const PlanProblem *p = S->p;
    int *join = malloc((size_t)S->nt * sizeof *join), nj = 0;
    for (int k = 0; k < S->nt; k++) {
        const Table *t = &S->t[k];
        for (int i = 0; i < t->n && !t->dead; i++)
            if (t->scope[i] == x) {
                join[nj++] = k;
                break;
            }
    }
    int *nscope = malloc(((size_t)n + 1) * sizeof *nscope);
    memcpy(nscope, scope, (size_t)n * sizeof *nscope);
    Table *r = table_add(S, nscope, n);   /* may move S->t: index, not pointers, above */
    e->x = x;
    e->n = n;
    e->scope = malloc(((size_t)n + 1) * sizeof *e->scope);
    memcpy(e->scope, scope, (size_t)n * sizeof *e->scope);
    e->best = malloc((size_t)r->size);
    int *a = calloc((size_t)n + 1, sizeof *a);
    int64_t i = 0;
    do {
        for (int j = 0; j < n; j++)
            label[scope[j]] = a[j];
        int64_t best = PLAN_INF;
        int arg = 0;
        for (int l = 0; l < p->vars[x].nlab; l++) {
            label[x] = l;
            int64_t c = 0;
            for (int k = 0; k < nj && c < PLAN_INF; k++)
                c = add_cost(c, S->t[join[k]].cost[index_of(p, &S->t[join[k]], label)]);
            if (c < best) {
                best = c;
                arg = l;
            }
        }
        r->cost[i] = best;
        e->best[i++] = (unsigned char)arg;
    } while (step(p, scope, n, a));
    for (int k = 0; k < nj; k++)
        S->t[join[k]].dead = 1;
    free(a);
    free(join);
}

/* Local moves from label[]: each variable takes its best label with the
 * others fixed, until none improves. */
static int64_t improve(const PlanProblem *p, int *label)
{
    int64_t cur = plan_cost(p, label);
    for (int changed = 1, round = 0; changed && round < 100; round++) {
        changed = 0;
        for (int v = 0; v < p->n; v++) {
            int keep = label[v];
            for (int l = 0; l < p->vars[v].nlab; l++) {
                if (l == keep)
                    continue;
                label[v] = l;
                int64_t c = plan_cost(p, label);
                if (c < cur) {
                    cur = c;
                    keep = l;
                    changed = 1;
                }
            }
            label[v] = keep;
        }
    }
    return cur;
}

static int exact(Solver *S, int *label, int64_t *opt)
{
    const PlanProblem *p = S->p;
    Elim *el = calloc((size_t)p->n + 1, sizeof *el);
    int *scope = malloc(((size_t)p->n + 1) * sizeof *scope);
    char *in = calloc((size_t)p->n + 1, 1), *done = calloc((size_t)p->n + 1, 1);
    int ne = 0, ok = 1;
    for (; ne < p->n && ok; ne++) {
        int x = -1;
        int64_t best = 0;
        for (int v = 0; v < p->n; v++) {
            if (done[v])
                continue;
            int n = joined_scope(S, v, scope, in);
            int64_t c = cells(p, scope, n, S->max_cells);
            if (x < 0 || c < best) {
                x = v;
                best = c;
            }
        }
        if (best > S->max_cells) {
            ok = 0;
            break;
        }
        int n = joined_scope(S, x, scope, in);
        eliminate(S, x, scope, n, &el[ne], label);
        done[x] = 1;
    }
    if (ok) {
        int64_t c = 0;
        for (int k = 0; k < S->nt; k++)
            if (!S->t[k].dead)
                c = add_cost(c, S->t[k].cost[0]);
        *opt = c;
        for (int k = ne - 1; k >= 0; k--) {
            Table t = { .scope = el[k].scope, .n = el[k].n };
            label[el[k].x] = el[k].best[index_of(p, &t, label)];
        }
    }
    for (int k = 0; k < ne; k++) {
        free(el[k].scope);
        free(el[k].best);
    }
    free(el);
    free(scope);
    free(in);
    free(done);
    return ok ? 0 : -1;
}

int plan_solve(const PlanProblem *p, int64_t max_cells, PlanResult *r)
{
    Solver S = { .p = p, .max_cells = max_cells > 0 ? max_cells : (int64_t)1 << 22 };
    int *label = calloc((size_t)p->n + 1, sizeof *label);
    int built = 1;
    int64_t bound = 0;
    for (int v = 0; v < p->n; v++) {
        int *scope = malloc(sizeof *scope);
        scope[0] = v;
        Table *t = table_add(&S, scope, 1);
        memcpy(t->cost, p->vars[v].unary, (size_t)p->vars[v].nlab * sizeof *t->cost);
        bound = add_cost(bound, table_min(t));
    }
    for (int v = 0; v < p->n && built; v++)
        if (p->vars[v].nuses) {
            if (payment_table(&S, v, label))
                built = 0;
            else
                bound = add_cost(bound, table_min(&S.t[S.nt - 1]));
        }
    int64_t opt = PLAN_INF;
    r->exact = built && exact(&S, label, &opt) == 0;
    if (!r->exact) {
        for (int v = 0; v < p->n; v++) {   /* start from the cheapest possible label of each */
            label[v] = 0;
            for (int l = 1; l < p->vars[v].nlab; l++)
                if (p->vars[v].unary[l] < p->vars[v].unary[label[v]])
                    label[v] = l;
        }
        opt = improve(p, label);
    }
    for (int k = 0; k < S.nt; k++) {
        free(S.t[k].scope);
        free(S.t[k].cost);
    }
    free(S.t);
    r->label = label;
    r->cost = opt;
    r->bound = r->exact ? opt : bound;
    return opt >= PLAN_INF ? -1 : 0;
}
