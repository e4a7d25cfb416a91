/* The call cache of --verify-exec (see memo.h). */
#include <stdlib.h>
#include <string.h>

#include "memo.h"
#include "../ir/oom.h"

/* A copy of a buffer's contents, shared by every entry that saw the same
 * bytes: a call's output as it left it is the next call's input as it
 * found it, and every fresh output of one shape holds the same poison. */
typedef struct Blob {
    uint64_t hash;         /* of the dtype, the shape and the bytes */
    Tensor *t;             /* t->data as kind says */
    enum {
        BLOB_COPY,         /* t->data is a copy, the cache's */
        BLOB_CONST,        /* t->data is a module constant's (Tensor.origin), read in place */
        BLOB_POISON,       /* every element poison (a fresh output): t->data is NULL */
        BLOB_MADE          /* made again from a constant when compared (Tensor.recipe): t->data is NULL */
    } kind;
    TensorRecipe *recipe;  /* BLOB_MADE */
    int refs;
    struct Blob *next;
} Blob;

typedef struct Entry {
    uint64_t hash;
    char *text;
    int n;
    Blob **before;         /* every buffer as the call found it */
    Blob **after;          /* as it left it; NULL where unchanged */
    int used;              /* the last run of main that made or replayed it */
    struct Entry *next;
} Entry;

struct Memo {
    Entry **slots;
    size_t nslots, count;
    Blob **blobs;          /* nslots chains too */
    size_t bytes, max_bytes;   /* bytes: of the blobs */
    int64_t hits, misses;
    int run;               /* runs of main begun */
};

/* A call under way: the blobs of its buffers as it found them. Until
 * memo_record takes it, it is dropped (its blobs released) if an
 * allocation fails. */
struct MemoCall {
    Memo *mc;
    int n;
    Blob **before;
};

enum { MEMO_SLOTS = 1024 };

static void memo_free_v(void *mc)
{
    memo_free(mc);
}

Memo *memo_new(size_t max_bytes)
{
    Memo *mc = xcalloc(1, sizeof *mc);
    if (!mc)
        oom_fail();
    oom_defer(memo_free_v, mc);   /* nslots is 0 until both tables exist */
    if (!(mc->slots = xcalloc(MEMO_SLOTS, sizeof *mc->slots)) ||
        !(mc->blobs = xcalloc(MEMO_SLOTS, sizeof *mc->blobs)))
        oom_fail();
    oom_keep(mc);
    mc->nslots = MEMO_SLOTS;
    mc->max_bytes = max_bytes;
    return mc;
}

static size_t tensor_bytes(const Tensor *t)
{
    return (size_t)t->count * (size_t)dtype_size(t->dtype);
}

static void blob_release(Memo *mc, Blob *b)
{
    if (!b || --b->refs > 0)
        return;
    Blob **p = &mc->blobs[b->hash % mc->nslots];
    while (*p != b)
        p = &(*p)->next;
    *p = b->next;
    if (b->kind != BLOB_COPY) {
        recipe_release(b->recipe);
        free(b->t);
    } else {
        mc->bytes -= tensor_bytes(b->t);
        tensor_free(b->t);
    }
    free(b);
}

static void blobs_release(Memo *mc, Blob **bs, int n)
{
    if (!bs)
        return;
    for (int i = 0; i < n; i++)
        blob_release(mc, bs[i]);
    free(bs);
}

static void entry_free(Memo *mc, Entry *e)
{
    blobs_release(mc, e->before, e->n);
    blobs_release(mc, e->after, e->n);
    free(e->text);
    free(e);
    mc->count--;
}

void memo_new_run(Memo *mc)
{
    mc->run++;
    for (size_t s = 0; s < mc->nslots; s++)
        for (Entry **p = &mc->slots[s]; *p;) {
            Entry *e = *p;
            if (e->used < mc->run - 1) {
                *p = e->next;
                entry_free(mc, e);
            } else {
                p = &e->next;
            }
        }
}

void memo_free(Memo *mc)
{
    if (!mc)
        return;
    for (size_t s = 0; s < mc->nslots; s++)
        for (Entry *e = mc->slots[s], *next; e; e = next) {
            next = e->next;
            entry_free(mc, e);
        }
    /* blobs still held: by a call under way when an allocation failed */
    for (size_t s = 0; s < mc->nslots; s++)
        while (mc->blobs[s]) {
            mc->blobs[s]->refs = 1;
            blob_release(mc, mc->blobs[s]);
        }
    free(mc->slots);
    free(mc->blobs);
    free(mc);
}

/* 64-bit words mixed by multiply and shift (the tail byte by byte): it only
 * picks the slot, so speed matters more than strength. A long buffer goes
 * in four lanes of 64 bits, which the processor multiplies side by side
 * (one chain waits on each multiply). */
static uint64_t mix(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    size_t i = 0;
    if (len >= 64) {
        uint64_t l[4] = { h, h ^ 1, h ^ 2, h ^ 3 };
        for (; i + 32 <= len; i += 32)
            for (int k = 0; k < 4; k++) {
                uint64_t w;
                memcpy(&w, b + i + 8 * k, 8);
                l[k] = (l[k] ^ w) * 0x9e3779b97f4a7c15ull;
                l[k] ^= l[k] >> 29;
            }
        for (int k = 0; k < 4; k++) {
            h = (h ^ l[k]) * 0x9e3779b97f4a7c15ull;
            h ^= h >> 29;
        }
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t tensor_hash(const Tensor *t)
{
    uint64_t h = mix(0xcbf29ce484222325ull, &t->dtype, sizeof t->dtype);
    h = mix(h, t->shape, (size_t)t->ndim * sizeof *t->shape);
    return mix(h, t->data, tensor_bytes(t));
}

static uint64_t key_hash(const char *text, const uint64_t *hs, int n)
{
    return mix(mix(0xcbf29ce484222325ull, text, strlen(text)), hs, (size_t)n * sizeof *hs);
}

/* Whether every element of t is poison: the first is, and each equals the one before. */
static int all_poison(const Tensor *t)
{
    size_t size = (size_t)dtype_size(t->dtype), bytes = tensor_bytes(t);
    return t->count > 0 && tensor_is_poison(t, 0) &&
           memcmp(t->data, (const char *)t->data + size, bytes - size) == 0;
}

static int same_type(const Tensor *a, const Tensor *b)
{
    return a->dtype == b->dtype && a->ndim == b->ndim &&
           memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape) == 0;
}

/* Whether t holds the bytes of blob b. */
static int blob_holds(const Blob *b, const Tensor *t)
{
    if (!same_type(b->t, t))
        return 0;
    if (b->kind == BLOB_MADE)
        return recipe_holds(b->recipe, t);
    return b->kind == BLOB_POISON ? all_poison(t) : memcmp(b->t->data, t->data, tensor_bytes(t)) == 0;
}

/* The blob holding t's contents (hash h), shared or copied; NULL when out of memory. */
static Blob *blob_get(Memo *mc, const Tensor *t, uint64_t h)
{
    for (Blob *b = mc->blobs[h % mc->nslots]; b; b = b->next)
        if (b->hash == h && blob_holds(b, t)) {
            b->refs++;
            return b;
        }
    Blob *b = scratch_calloc(1, sizeof *b);   /* the cache's once linked below */
    /* a module constant's bytes as they were made: read in place, not
     * copied; a fresh output's poison: known without its bytes; a constant
     * rewritten as it was made: made again when compared */
    b->kind = t->origin && memcmp(t->data, t->origin, tensor_bytes(t)) == 0 ? BLOB_CONST
              : all_poison(t) ? BLOB_POISON
              : t->recipe && recipe_holds(t->recipe, t) ? BLOB_MADE : BLOB_COPY;
    if (b->kind != BLOB_COPY) {
        if (!(b->t = xmalloc(sizeof *b->t)))
            oom_fail();
        *b->t = *t;
        b->t->data = b->kind == BLOB_CONST ? (void *)t->origin : NULL;
        b->t->mapped = 0;
        b->t->recipe = NULL;
        b->recipe = b->kind == BLOB_MADE ? recipe_hold(t->recipe) : NULL;
    } else if (!(b->t = tensor_clone(t))) {
        scratch_free(b);
        return NULL;
    }
    oom_keep(b);
    b->hash = h;
    b->refs = 1;
    b->next = mc->blobs[h % mc->nslots];
    mc->blobs[h % mc->nslots] = b;
    if (b->kind == BLOB_COPY)
        mc->bytes += tensor_bytes(t);
    return b;
}

int memo_replay(Memo *mc, const char *text, Tensor **args, int n)
{
    uint64_t hs[64] = { 0 }, *hp = n <= 64 ? hs : xmalloc((size_t)n * sizeof *hp);
    if (!hp)
        oom_fail();
    for (int i = 0; i < n; i++)
        hp[i] = tensor_hash(args[i]);
    uint64_t h = key_hash(text, hp, n);
    int found = 0;
    for (Entry *e = mc->slots[h % mc->nslots]; e && !found; e = e->next) {
        if (e->hash != h || e->n != n || strcmp(e->text, text))
            continue;
        int same = 1;
        for (int i = 0; i < n && same; i++)
            same = e->before[i]->hash == hp[i] && blob_holds(e->before[i], args[i]);
        if (!same)
            continue;
        for (int i = 0; i < n; i++)
            if (e->after[i] && e->after[i]->kind == BLOB_POISON)
                tensor_fill_poison_all(args[i]);
            else if (e->after[i] && e->after[i]->kind == BLOB_MADE)
                recipe_make(e->after[i]->recipe, args[i]);
            else if (e->after[i])
                memcpy(args[i]->data, e->after[i]->t->data, tensor_bytes(args[i]));
        e->used = mc->run;
        found = 1;
    }
    if (hp != hs)
        free(hp);
    if (found)
        mc->hits++;
    else
        mc->misses++;
    return found;
}

static void call_drop(void *p)
{
    MemoCall *call = p;
    blobs_release(call->mc, call->before, call->n);
    free(call);
}

MemoCall *memo_before(Memo *mc, Tensor *const *args, int n)
{
    size_t need = 0;
    for (int i = 0; i < n; i++)
        need += 2 * tensor_bytes(args[i]);   /* before, and after at most */
    if (mc->bytes + need > mc->max_bytes)
        return NULL;
    /* the call's tables go if an allocation fails before they are the
     * call's (the blobs are the cache's, which frees them) */
    MemoCall *call = scratch_calloc(1, sizeof *call);
    Blob **b = scratch_calloc((size_t)n + 1, sizeof *b);
    for (int i = 0; i < n; i++)
        if (!(b[i] = blob_get(mc, args[i], tensor_hash(args[i])))) {
            oom_keep(b);
            blobs_release(mc, b, i);
            scratch_free(call);
            return NULL;
        }
    oom_keep(b);
    oom_keep(call);
    call->mc = mc;
    call->n = n;
    call->before = b;
    oom_defer(call_drop, call);
    return call;
}

void memo_record(Memo *mc, const char *text, MemoCall *call, Tensor *const *args, int n, int ok, int64_t steps)
{
    if (!call)
        return;
    int64_t elems = 0;
    for (int i = 0; i < n; i++)
        elems += args[i]->count;
    if (steps < elems)
        ok = 0;   /* running it again costs about what replaying it would */
    if (!ok) {
        oom_keep(call);
        call_drop(call);
        return;
    }
    /* the entry's parts go if an allocation fails before it is the cache's */
    size_t len = strlen(text) + 1;
    Entry *e = scratch_calloc(1, sizeof *e);
    Blob **after = scratch_calloc((size_t)n + 1, sizeof *after);
    char *t = memcpy(scratch_alloc(len), text, len);
    uint64_t *hs = scratch_alloc(((size_t)n + 1) * sizeof *hs);
    for (int i = 0; i < n; i++) {
        hs[i] = call->before[i]->hash;
        if (!blob_holds(call->before[i], args[i]) && !(after[i] = blob_get(mc, args[i], tensor_hash(args[i])))) {
            oom_keep(after);
            blobs_release(mc, after, i);
            scratch_free(e);
            scratch_free(t);
            scratch_free(hs);
            oom_keep(call);
            call_drop(call);
            return;
        }
    }
    oom_keep(e);
    oom_keep(after);
    oom_keep(t);
    e->hash = key_hash(text, hs, n);
    scratch_free(hs);
    e->text = t;
    e->n = n;
    e->before = call->before;
    oom_keep(call);
    free(call);   /* its blobs are the entry's */
    e->after = after;
    e->used = mc->run;
    e->next = mc->slots[e->hash % mc->nslots];
    mc->slots[e->hash % mc->nslots] = e;
    mc->count++;
}

void memo_counts(const Memo *mc, int64_t *hits, int64_t *misses)
{
    *hits = mc->hits;
    *misses = mc->misses;
}
