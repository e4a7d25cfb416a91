/* Solving the layout plan's problem (plan_solve.h) exactly: variable
 * elimination while its tables stay small, a minimum cut where the problem is
 * one (two labels, the payments of the forms plan_solve.h names), else
 * elimination with the tables the caller allows.
 * Every term is a table over a few variables (a unary cost, or a value's
 * payment for its rewrites over the value and its users; for a value with
 * many users, chains of auxiliary OR variables). Eliminating a variable x
 * joins the tables that mention x and keeps, for each assignment of the
 * others, the best label of x and its cost: the last table is the optimum,
 * and walking the eliminations backwards reads the labels off. The order is
 * greedy, smallest joined table first, kept in a heap; on the graphs of
 * models (chains, diamonds, residual blocks) the tables stay a few labels
 * wide and the work is linear in the values. */
#include <stdlib.h>
#include <string.h>

#include "plan_solve.h"
#include "../../ir/oom.h"

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
        if (k >= 0 && v->share)
            k = v->share[lb * v->nkey + k];
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
    char *seen = xmalloc((size_t)max_keys(p));
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
    int nv, capv;         /* variables: the problem's, then the auxiliary ones of wide payments */
    int *nlab;            /* [nv] */
    Table *t;
    int nt, cap;
    int64_t max_cells;
    int *pos;             /* [p->n]: a user's place in payment_chain's list, else -1 */
    int **of;             /* per variable: the tables that mention it (dead ones dropped as met) */
    int *nof, *capof;
    int *pending;         /* a scope made for table_add, not yet a table's */
} Solver;

static int64_t cells(const int *nlab, const int *scope, int n, int64_t limit)
{
    int64_t s = 1;
    for (int i = 0; i < n; i++) {
        s *= nlab[scope[i]];
        if (s > limit)
            return limit + 1;
    }
    return s;
}

static Table *table_add(Solver *S, int *scope, int n)
{
    S->pending = scope;   /* freed with the solver if the table cannot be had */
    if (S->nt == S->cap) {
        S->cap = S->cap ? S->cap * 2 : 64;
        S->t = xrealloc(S->t, (size_t)S->cap * sizeof *S->t);
    }
    for (int i = 0; i < n; i++) {
        int v = scope[i];
        if (S->nof[v] == S->capof[v]) {
            S->capof[v] = S->capof[v] ? 2 * S->capof[v] : 4;
            S->of[v] = xrealloc(S->of[v], (size_t)S->capof[v] * sizeof *S->of[v]);
        }
        S->of[v][S->nof[v]++] = S->nt;
    }
    Table *t = &S->t[S->nt++];
    t->scope = scope;
    S->pending = NULL;
    t->n = n;
    t->size = cells(S->nlab, scope, n, INT64_MAX / 4);
    t->cost = NULL;
    t->dead = 0;
    t->cost = xcalloc((size_t)t->size, sizeof *t->cost);
    return t;
}

/* Steps the mixed-radix counter a over scope; returns 0 after the last. */
static int step(const int *nlab, const int *scope, int n, int *a)
{
    for (int i = 0; i < n; i++) {
        if (++a[i] < nlab[scope[i]])
            return 1;
        a[i] = 0;
    }
    return 0;
}

/* A variable more: an auxiliary one of nlab labels. */
static int var_add(Solver *S, int nlab)
{
    if (S->nv == S->capv) {
        S->capv = S->capv ? 2 * S->capv : 64;
        S->nlab = xrealloc(S->nlab, (size_t)S->capv * sizeof *S->nlab);
        S->of = xrealloc(S->of, (size_t)S->capv * sizeof *S->of);
        S->nof = xrealloc(S->nof, (size_t)S->capv * sizeof *S->nof);
        S->capof = xrealloc(S->capof, (size_t)S->capv * sizeof *S->capof);
    }
    S->nlab[S->nv] = nlab;
    S->of[S->nv] = NULL;
    S->nof[S->nv] = S->capof[S->nv] = 0;
    return S->nv++;
}

static int *scope_of(int n, int a, int b, int c)
{
    int *scope = xmalloc(3 * sizeof *scope), v[3] = { a, b, c };
    memcpy(scope, v, (size_t)n * sizeof *scope);
    return scope;
}

/* The value b's payment when a table over b and all its users would be too
 * wide (a parameter read by many calls): per key k, whether a user asks it
 * is an OR carried along a chain of two-label auxiliary variables, y_j =
 * y_(j-1) OR (user j asks k), each a table of three variables (the
 * impossible combinations cost PLAN_INF), and the last y pays b's rewrite
 * to k. Tables of at most 2 * 2 * labels cells: a value's many users no
 * longer make a wide table. */
static int payment_chain(Solver *S, int b)
{
    const PlanVar *v = &S->p->vars[b];
    if (v->share)
        return -1;   /* an OR per key cannot say which keys share one rewrite under b's label */
    int *users = scratch_alloc(((size_t)v->nuses + 1) * sizeof *users), nu = 0;
    unsigned *asks = scratch_calloc((size_t)v->nuses + 1, sizeof *asks);   /* per user: the labels under which it asks k */
    for (int u = 0; u < v->nuses; u++) {
        int w = v->uses[u].user;
        if (w >= 0 && S->pos[w] < 0) {
            S->pos[w] = nu;
            users[nu++] = w;
        }
    }
    for (int j = 0; j < nu; j++)
        if (4 * (int64_t)S->nlab[users[j]] > S->max_cells || 2 * (int64_t)v->nlab > S->max_cells) {
            for (int q = 0; q < nu; q++)
                S->pos[users[q]] = -1;
            scratch_free(users);
            scratch_free(asks);
            return -1;
        }
    for (int k = 0; k < v->nkey; k++) {
        int always = 0, some = 0;
        for (int u = 0; u < v->nuses; u++) {
            const PlanUse *use = &v->uses[u];
            int w = use->user;
            for (int l = 0; l < (w < 0 ? 1 : S->nlab[w]); l++)
                if (use->key[l] == k) {
                    always |= w < 0;
                    some |= w >= 0;
                }
        }
        int stored = 1;   /* k is where every label of b stores it: never paid */
        for (int lb = 0; lb < v->nlab; lb++)
            stored &= k == (v->store ? v->store[lb] : lb);
        if ((!always && !some) || stored)
            continue;
        memset(asks, 0, (size_t)nu * sizeof *asks);
        for (int u = 0; u < v->nuses; u++)
            for (int l = 0; v->uses[u].user >= 0 && l < S->nlab[v->uses[u].user]; l++)
                if (v->uses[u].key[l] == k)
                    asks[S->pos[v->uses[u].user]] |= 1u << l;
        int y = -1;   /* the OR so far */
        for (int j = 0; !always && j < nu; j++) {
            int w = users[j], ny = var_add(S, 2);
            Table *t = y < 0 ? table_add(S, scope_of(2, w, ny, 0), 2) : table_add(S, scope_of(3, y, w, ny), 3);
            int64_t i = 0;
            for (int c = 0; c < t->size; c++, i++) {   /* scope order: y (fastest), w, ny */
                int r = c, prev = 0, lw, out;
                if (y >= 0) {
                    prev = r % 2;
                    r /= 2;
                }
                lw = r % S->nlab[w];
                out = r / S->nlab[w];
                t->cost[i] = out == (prev | (int)(asks[j] >> lw & 1)) ? 0 : PLAN_INF;
            }
            y = ny;
        }
        /* b pays its rewrite to k when k is asked and is not where it stores */
        Table *t = always ? table_add(S, scope_of(1, b, 0, 0), 1) : table_add(S, scope_of(2, b, y, 0), 2);
        for (int c = 0; c < t->size; c++) {
            int lb = c % v->nlab, on = always || c / v->nlab;
            t->cost[c] = on && k != (v->store ? v->store[lb] : lb) ? v->rewrite[lb * v->nkey + k] : 0;
        }
    }
    for (int j = 0; j < nu; j++)
        S->pos[users[j]] = -1;
    scratch_free(users);
    scratch_free(asks);
    return 0;
}

/* The value b's payment as a table over b and its users, or as chains
 * (payment_chain) when that table would pass S->max_cells. */
static int payment_table(Solver *S, int b, int *label, char *in)
{
    const PlanVar *v = &S->p->vars[b];
    int *scope = xmalloc(((size_t)v->nuses + 1) * sizeof *scope), n = 0;
    scope[n++] = b;
    in[b] = 1;
    for (int u = 0; u < v->nuses; u++) {
        int w = v->uses[u].user;
        if (w >= 0 && !in[w]) {
            in[w] = 1;
            scope[n++] = w;
        }
    }
    for (int j = 0; j < n; j++)
        in[scope[j]] = 0;
    if (cells(S->nlab, scope, n, S->max_cells) > S->max_cells) {
        free(scope);
        return payment_chain(S, b);
    }
    Table *t = table_add(S, scope, n);
    int *a = scratch_calloc((size_t)n, sizeof *a);
    char *seen = scratch_alloc((size_t)v->nkey);
    int *asked = scratch_alloc(((size_t)v->nkey + 1) * sizeof *asked);
    int self = 0;
    for (int u = 0; u < v->nuses; u++)
        self |= v->uses[u].user == b;
    int64_t i = 0;
    do {
        for (int j = 0; j < n; j++)
            label[scope[j]] = a[j];
        if (self || v->share) {   /* b's label decides the keys (or the shares) its users ask */
            t->cost[i++] = payment(v, a[0], label, seen);
            continue;
        }
        /* b varies fastest: the keys its users ask, found once for all its
         * labels (payment's sum, in the same order) */
        int nk = 0;
        memset(seen, 0, (size_t)v->nkey);
        for (int u = 0; u < v->nuses; u++) {
            const PlanUse *use = &v->uses[u];
            int k = use->user < 0 ? use->key[0] : use->key[label[use->user]];
            if (k >= 0 && !seen[k]) {
                seen[k] = 1;
                asked[nk++] = k;
            }
        }
        for (int lb = 0; lb < v->nlab; lb++) {
            int64_t c = 0;
            int st = v->store ? v->store[lb] : lb;
            for (int q = 0; q < nk; q++)
                if (asked[q] != st)
                    c = add_cost(c, v->rewrite[lb * v->nkey + asked[q]]);
            t->cost[i++] = c;
        }
        a[0] = v->nlab - 1;
    } while (step(S->nlab, scope, n, a));
    scratch_free(a);
    scratch_free(seen);
    scratch_free(asked);
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

/* The live tables that mention x, its list compacted on the way. */
static int live_tables(Solver *S, int x)
{
    int n = 0;
    for (int k = 0; k < S->nof[x]; k++)
        if (!S->t[S->of[x][k]].dead)
            S->of[x][n++] = S->of[x][k];
    return S->nof[x] = n;
}

/* The union of the scopes of the live tables that mention x, x left out. */
static int joined_scope(Solver *S, int x, int *out, char *in)
{
    int n = 0, nt = live_tables(S, x);
    in[x] = 1;
    for (int k = 0; k < nt; k++) {
        const Table *t = &S->t[S->of[x][k]];
        for (int i = 0; i < t->n; i++)
            if (!in[t->scope[i]]) {
                in[t->scope[i]] = 1;
                out[n++] = t->scope[i];
            }
    }
    in[x] = 0;
    for (int i = 0; i < n; i++)
        in[out[i]] = 0;
    return n;
}

/* The index into t of the assignment label[] gives its scope. */
static int64_t index_of(const int *nlab, const Table *t, const int *label)
{
    int64_t idx = 0, mul = 1;
    for (int i = 0; i < t->n; i++) {
        idx += label[t->scope[i]] * mul;
        mul *= nlab[t->scope[i]];
    }
    return idx;
}

static void eliminate(Solver *S, int x, int *scope, int n, Elim *e, int *label)
{
    int nj = live_tables(S, x);
    int *join = scratch_alloc(((size_t)nj + 1) * sizeof *join);
    memcpy(join, S->of[x], (size_t)nj * sizeof *join);
    int *nscope = xmalloc(((size_t)n + 1) * sizeof *nscope);
    memcpy(nscope, scope, (size_t)n * sizeof *nscope);
    for (int k = 0; k < nj; k++)
        S->t[join[k]].dead = 1;
    Table *r = table_add(S, nscope, n);   /* may move S->t: index, not pointers, above */
    e->x = x;
    e->n = n;
    e->scope = xmalloc(((size_t)n + 1) * sizeof *e->scope);
    memcpy(e->scope, scope, (size_t)n * sizeof *e->scope);
    e->best = xmalloc((size_t)r->size);
    int *a = scratch_calloc((size_t)n + 1, sizeof *a);
    /* per joined table: its cells, where x's label 0 is under the others'
     * labels, and how far apart x's labels are */
    const int64_t **cost = scratch_alloc(((size_t)nj + 1) * sizeof *cost);
    int64_t *base = scratch_alloc(((size_t)nj + 1) * sizeof *base), *stride = scratch_alloc(((size_t)nj + 1) * sizeof *stride);
    for (int k = 0; k < nj; k++) {
        const Table *t = &S->t[join[k]];
        int64_t mul = 1;
        cost[k] = t->cost;
        stride[k] = 0;
        for (int q = 0; q < t->n; q++) {
            if (t->scope[q] == x)
                stride[k] = mul;
            mul *= S->nlab[t->scope[q]];
        }
    }
    int64_t i = 0;
    do {
        for (int j = 0; j < n; j++)
            label[scope[j]] = a[j];
        label[x] = 0;
        for (int k = 0; k < nj; k++)
            base[k] = index_of(S->nlab, &S->t[join[k]], label);
        int64_t best = PLAN_INF;
        int arg = 0;
        for (int l = 0; l < S->nlab[x]; l++) {
            int64_t c = 0;
            for (int k = 0; k < nj && c < PLAN_INF; k++)
                c = add_cost(c, cost[k][base[k] + l * stride[k]]);
            if (c < best) {
                best = c;
                arg = l;
            }
        }
        label[x] = S->nlab[x] - 1;
        r->cost[i] = best;
        e->best[i++] = (unsigned char)arg;
    } while (step(S->nlab, scope, n, a));
    scratch_free(a);
    scratch_free(join);
    scratch_free(cost);
    scratch_free(base);
    scratch_free(stride);
}

/* ---- the elimination order: a heap of (joined table cells, variable) ---- */

typedef struct HeapItem {
    int64_t c;
    int v;
} HeapItem;

typedef struct Heap {
    HeapItem *h;
    int n, cap;
} Heap;

static int heap_less(HeapItem a, HeapItem b)
{
    return a.c < b.c || (a.c == b.c && a.v < b.v);
}

static void heap_push(Heap *H, int64_t c, int v)
{
    if (H->n == H->cap) {
        H->cap = H->cap ? 2 * H->cap : 64;
        H->h = scratch_realloc(H->h, (size_t)H->cap * sizeof *H->h);   /* exact's: freed if it unwinds */
    }
    int i = H->n++;
    H->h[i] = (HeapItem){ c, v };
    while (i > 0 && heap_less(H->h[i], H->h[(i - 1) / 2])) {
        HeapItem t = H->h[i];
        H->h[i] = H->h[(i - 1) / 2];
        H->h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static HeapItem heap_pop(Heap *H)
{
    HeapItem top = H->h[0];
    H->h[0] = H->h[--H->n];
    for (int i = 0;;) {
        int l = 2 * i + 1, m = i;
        if (l < H->n && heap_less(H->h[l], H->h[m]))
            m = l;
        if (l + 1 < H->n && heap_less(H->h[l + 1], H->h[m]))
            m = l + 1;
        if (m == i)
            break;
        HeapItem t = H->h[i];
        H->h[i] = H->h[m];
        H->h[m] = t;
        i = m;
    }
    return top;
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

/* Eliminates every variable, the one with the smallest joined table first
 * (ties: the first variable); only a variable's neighbours change their
 * table, so each is put back in the heap with its new size and the stale
 * entries are skipped. -1 when a table would pass S->max_cells. */
/* The eliminations made so far, with their tables. */
typedef struct Elims {
    Elim *el;
    int n;
} Elims;

static void elims_free(Elims *E)
{
    for (int k = 0; E->el && k < E->n; k++) {
        free(E->el[k].scope);
        free(E->el[k].best);
    }
    free(E->el);
}

static void elims_free_v(void *E)
{
    elims_free(E);
}

static int exact(Solver *S, int *label, int64_t *opt)
{
    int nv = S->nv;
    Elims E = { NULL, 0 };
    oom_defer(elims_free_v, &E);
    Elim *el = E.el = xcalloc((size_t)nv + 1, sizeof *el);
    int *scope = scratch_alloc(((size_t)nv + 1) * sizeof *scope), *other = scratch_alloc(((size_t)nv + 1) * sizeof *other);
    char *in = scratch_calloc((size_t)nv + 1, 1), *done = scratch_calloc((size_t)nv + 1, 1);
    int64_t *size = scratch_alloc(((size_t)nv + 1) * sizeof *size);
    Heap H = { 0 };
    int ok = 1;
    for (int v = 0; v < nv; v++) {
        int n = joined_scope(S, v, scope, in);
        size[v] = cells(S->nlab, scope, n, S->max_cells);
        heap_push(&H, size[v], v);
    }
    while (E.n < nv) {
        HeapItem it = heap_pop(&H);
        if (done[it.v] || it.c != size[it.v])
            continue;
        if (it.c > S->max_cells) {
            ok = 0;
            break;
        }
        int x = it.v;
        int n = joined_scope(S, x, scope, in);
        eliminate(S, x, scope, n, &el[E.n++], label);
        done[x] = 1;
        for (int j = 0; j < n; j++) {
            int y = scope[j];
            int64_t c = cells(S->nlab, other, joined_scope(S, y, other, in), S->max_cells);
            if (c != size[y]) {
                size[y] = c;
                heap_push(&H, c, y);
            }
        }
    }
    if (ok) {
        int64_t c = 0;
        for (int k = 0; k < S->nt; k++)
            if (!S->t[k].dead)
                c = add_cost(c, S->t[k].cost[0]);
        *opt = c;
        for (int k = E.n - 1; k >= 0; k--) {
            Table t = { .scope = el[k].scope, .n = el[k].n };
            label[el[k].x] = el[k].best[index_of(S->nlab, &t, label)];
        }
    }
    scratch_free(scope);
    scratch_free(other);
    scratch_free(in);
    scratch_free(done);
    scratch_free(size);
    scratch_free(H.h);
    oom_keep(&E);
    elims_free(&E);
    return ok ? 0 : -1;
}

/* ---- two labels: a minimum s-t cut ----
 *
 * A variable on the source's side of the cut takes label 0, on the sink's
 * label 1; an edge i -> j of capacity w is cut, and costs w, when i takes 0
 * and j takes 1 (s and t are fixed to 0 and 1). Maximum flow by Dinic's
 * algorithm; the source's side is what the residual network reaches. */

typedef struct Net {
    int n, *head, *level, *it;
    int *to, *next;
    int64_t *cap;
    int ne, cape;
} Net;

#define CUT_INF ((int64_t)1 << 52)

static int net_node(Net *N)
{
    N->head = xrealloc(N->head, ((size_t)N->n + 1) * sizeof *N->head);
    N->head[N->n] = -1;
    return N->n++;
}

static void net_arc(Net *N, int a, int b, int64_t c)
{
    if (N->ne + 2 > N->cape) {
        N->cape = N->cape ? 2 * N->cape : 256;
        N->to = xrealloc(N->to, (size_t)N->cape * sizeof *N->to);
        N->next = xrealloc(N->next, (size_t)N->cape * sizeof *N->next);
        N->cap = xrealloc(N->cap, (size_t)N->cape * sizeof *N->cap);
    }
    int pair[2][2] = { { a, b }, { b, a } };
    for (int k = 0; k < 2; k++) {
        N->to[N->ne] = pair[k][1];
        N->cap[N->ne] = k ? 0 : c;
        N->next[N->ne] = N->head[pair[k][0]];
        N->head[pair[k][0]] = N->ne++;
    }
}

static void net_edge(Net *N, int a, int b, int64_t c)
{
    if (c > 0)
        net_arc(N, a, b, c >= PLAN_INF ? CUT_INF : c);
}

/* Breadth first from s over arcs with room; returns whether t is reached. */
static int levels(Net *N, int s, int t, int *queue)
{
    for (int i = 0; i < N->n; i++)
        N->level[i] = -1;
    int qh = 0, qt = 0;
    N->level[s] = 0;
    queue[qt++] = s;
    while (qh < qt) {
        int u = queue[qh++];
        for (int e = N->head[u]; e >= 0; e = N->next[e])
            if (N->cap[e] > 0 && N->level[N->to[e]] < 0) {
                N->level[N->to[e]] = N->level[u] + 1;
                queue[qt++] = N->to[e];
            }
    }
    return N->level[t] >= 0;
}

/* One augmenting path of the level graph, found depth first without
 * recursion; returns the flow pushed (0: none is left). */
static int64_t augment(Net *N, int s, int t, int *stack)
{
    int depth = 0, u = s;
    for (;;) {
        if (u == t) {
            int64_t f = CUT_INF;
            for (int k = 0; k < depth; k++)
                if (N->cap[stack[k]] < f)
                    f = N->cap[stack[k]];
            for (int k = 0; k < depth; k++) {
                N->cap[stack[k]] -= f;
                N->cap[stack[k] ^ 1] += f;
            }
            return f;
        }
        int e = N->it[u];
        while (e >= 0 && !(N->cap[e] > 0 && N->level[N->to[e]] == N->level[u] + 1))
            e = N->next[e];
        N->it[u] = e;
        if (e >= 0) {
            stack[depth++] = e;
            u = N->to[e];
            continue;
        }
        if (depth == 0)
            return 0;
        N->level[u] = -1;   /* a dead end: not again in this phase */
        u = N->to[stack[--depth] ^ 1];
        N->it[u] = N->next[N->it[u]];
    }
}

static int64_t max_flow(Net *N, int s, int t)
{
    int64_t flow = 0;
    int *queue = scratch_alloc((size_t)N->n * sizeof *queue), *stack = scratch_alloc((size_t)N->n * sizeof *stack);
    N->level = xmalloc((size_t)N->n * sizeof *N->level);
    N->it = xmalloc((size_t)N->n * sizeof *N->it);
    while (flow < CUT_INF && levels(N, s, t, queue)) {
        for (int i = 0; i < N->n; i++)
            N->it[i] = N->head[i];
        for (int64_t f; (f = augment(N, s, t, stack)) > 0 && flow < CUT_INF;)
            flow += f;
    }
    levels(N, s, t, queue);   /* level >= 0: the source's side */
    scratch_free(queue);
    scratch_free(stack);
    return flow;
}

/* The literal "use u asks key k": 0 never, 1 always, 2 when its user takes
 * label 1, 3 when it takes label 0. */
static int literal(const PlanProblem *p, const PlanUse *u, int k)
{
    if (u->user < 0 || p->vars[u->user].nlab == 1)
        return u->key[0] == k;
    int a0 = u->key[0] == k, a1 = u->key[1] == k;
    return a0 && a1 ? 1 : a1 ? 2 : a0 ? 3 : 0;
}

/* Builds the network of p; -1 when a payment is not a cut term. */
static int build_cut(const PlanProblem *p, Net *N)
{
    net_node(N);
    net_node(N);   /* s = 0, t = 1, then one node per variable */
    for (int v = 0; v < p->n; v++) {
        const PlanVar *pv = &p->vars[v];
        if (pv->nlab > 2 || (pv->store && pv->nlab == 2 && pv->store[1] != 1) || pv->share)
            return -1;
        int x = net_node(N);
        if (pv->nlab == 1)
            net_edge(N, 0, x, PLAN_INF);   /* fixed to label 0 */
        else {
            net_edge(N, x, 1, pv->unary[0]);
            net_edge(N, 0, x, pv->unary[1]);
        }
    }
    for (int b = 0; b < p->n; b++) {
        const PlanVar *pv = &p->vars[b];
        int xb = 2 + b;
        for (int k = 0; k < pv->nkey; k++) {
            int64_t c0 = k != 0 ? pv->rewrite[k] : 0, c1 = pv->nlab > 1 && k != 1 ? pv->rewrite[pv->nkey + k] : 0;
            int always = 0, pos = 0, neg = 0;
            for (int u = 0; u < pv->nuses; u++) {
                int l = literal(p, &pv->uses[u], k);
                always |= l == 1;
                pos |= l == 2;
                neg |= l == 3;
            }
            if (always) {   /* asked whatever the users do: the value's own choice */
                if (pv->nlab > 1) {
                    net_edge(N, xb, 1, c0);
                    net_edge(N, 0, xb, c1);
                }
                continue;
            }
            if (!pos && !neg)
                continue;
            if (pos && neg)
                return -1;
            if (pv->nlab == 1)
                c1 = c0;   /* x_b is 0: the payment is c0 * asked */
            int z = net_node(N);
            if (pos) {   /* asked = OR(x_u) = z; c1 * z + (c0 - c1) * (1 - x_b) * z */
                if (c1 > c0)
                    return -1;
                net_edge(N, 0, z, c1);
                net_edge(N, xb, z, c0 - c1);
            } else {     /* asked = OR(1 - x_u) = 1 - z; c0 * (1 - z) + (c1 - c0) * x_b * (1 - z) */
                if (c0 > c1)
                    return -1;
                net_edge(N, z, 1, c0);
                net_edge(N, z, xb, c1 - c0);
            }
            for (int u = 0; u < pv->nuses; u++) {
                int l = literal(p, &pv->uses[u], k), xu = 2 + pv->uses[u].user;
                if (l == 2)
                    net_edge(N, z, xu, PLAN_INF);   /* z >= x_u */
                else if (l == 3)
                    net_edge(N, xu, z, PLAN_INF);   /* z <= x_u */
            }
        }
    }
    return 0;
}

static void net_free(void *p)
{
    Net *N = p;
    free(N->head);
    free(N->level);
    free(N->it);
    free(N->to);
    free(N->next);
    free(N->cap);
}

static int cut_solve(const PlanProblem *p, int *label)
{
    Net N = { 0 };
    oom_defer(net_free, &N);
    int ok = build_cut(p, &N) == 0 && max_flow(&N, 0, 1) < CUT_INF;
    for (int v = 0; ok && v < p->n; v++)
        label[v] = N.level[2 + v] >= 0 ? 0 : 1;
    oom_keep(&N);
    net_free(&N);
    return ok ? 0 : -1;
}

/* Variable elimination with tables of at most max_cells: 0 and the
 * optimum in label[] and *opt, or -1 when a table would be wider; *bound
 * is then a lower bound: the sum of the minima of the terms built. */
/* What a solver holds: its tables, their scopes and its lists. */
static void solver_free(Solver *S)
{
    for (int k = 0; k < S->nt; k++) {
        free(S->t[k].scope);
        free(S->t[k].cost);
    }
    for (int v = 0; v < S->nv; v++)
        free(S->of[v]);
    free(S->pending);
    free(S->t);
    free(S->of);
    free(S->nof);
    free(S->capof);
    free(S->nlab);
    free(S->pos);
}

static void solver_free_v(void *S)
{
    solver_free(S);
}

static int elimination(const PlanProblem *p, int64_t max_cells, int *label, int64_t *opt, int64_t *bound)
{
    Solver S = { .p = p, .max_cells = max_cells };
    oom_defer(solver_free_v, &S);
    for (int v = 0; v < p->n; v++)
        var_add(&S, p->vars[v].nlab);
    S.pos = xmalloc(((size_t)p->n + 1) * sizeof *S.pos);
    for (int v = 0; v < p->n; v++)
        S.pos[v] = -1;
    char *in = scratch_calloc((size_t)p->n + 1, 1);
    int *work = scratch_calloc((size_t)p->n + 1, sizeof *work);
    int built = 1;
    *bound = 0;
    for (int v = 0; v < p->n; v++) {
        int *scope = S.pending = xmalloc(sizeof *scope);
        scope[0] = v;
        Table *t = table_add(&S, scope, 1);
        memcpy(t->cost, p->vars[v].unary, (size_t)p->vars[v].nlab * sizeof *t->cost);
        *bound = add_cost(*bound, table_min(t));
    }
    for (int v = 0; v < p->n && built; v++)
        if (p->vars[v].nuses) {
            int before = S.nt;
            if (payment_table(&S, v, work, in))
                built = 0;
            else if (S.nt == before + 1)
                *bound = add_cost(*bound, table_min(&S.t[S.nt - 1]));
        }
    int rc = -1;
    if (built) {
        int *all = scratch_calloc((size_t)S.nv + 1, sizeof *all);
        rc = exact(&S, all, opt);
        if (rc == 0)
            memcpy(label, all, (size_t)p->n * sizeof *label);
        scratch_free(all);
    }
    scratch_free(in);
    scratch_free(work);
    oom_keep(&S);
    solver_free(&S);
    return rc;
}

/* Elimination first while its tables stay small (linear in the values on
 * the graphs of models); a minimum cut where it applies; elimination with
 * the tables max_cells allows; local moves. */
int plan_solve_by(const PlanProblem *p, int64_t max_cells, int method, PlanResult *r)
{
    max_cells = max_cells > 0 ? max_cells : (int64_t)1 << 22;
    int64_t small = max_cells < PLAN_SMALL_CELLS ? max_cells : PLAN_SMALL_CELLS;
    int *label = xcalloc((size_t)p->n + 1, sizeof *label);
    int64_t opt = PLAN_INF, bound = 0;
    r->label = label;
    r->exact = 1;
    r->method = PLAN_ELIMINATION;
    if (method != PLAN_CUT && elimination(p, small, label, &opt, &bound) == 0)
        goto done;
    if (method != PLAN_ELIMINATION) {
        int rc = cut_solve(p, label);
        if (rc == 0) {
            opt = plan_cost(p, label);
            r->method = PLAN_CUT;
            goto done;
        }
        if (method == PLAN_CUT)
            return r->cost = r->bound = PLAN_INF, r->exact = 0, -2;
    }
    if (max_cells > small && elimination(p, max_cells, label, &opt, &bound) == 0)
        goto done;
    r->exact = 0;
    r->method = PLAN_LOCAL;
    for (int v = 0; v < p->n; v++) {   /* start from the cheapest possible label of each */
        label[v] = 0;
        for (int l = 1; l < p->vars[v].nlab; l++)
            if (p->vars[v].unary[l] < p->vars[v].unary[label[v]])
                label[v] = l;
    }
    opt = improve(p, label);
done:
    r->cost = opt;
    r->bound = r->exact ? opt : bound;
    return opt >= PLAN_INF ? -1 : 0;
}

int plan_solve(const PlanProblem *p, int64_t max_cells, PlanResult *r)
{
    return plan_solve_by(p, max_cells, 0, r);
}
