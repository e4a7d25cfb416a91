/* The call cache of --verify-exec (see memo.h). */
#include <stdlib.h>
#include <string.h>

#include "memo.h"

typedef struct Entry {
    uint64_t hash;
    char *text;
    int n;
    Tensor **before;       /* every buffer as the call found it */
    Tensor **after;        /* as it left it; NULL where unchanged */
    struct Entry *next;
} Entry;

struct Memo {
    Entry **slots;
    size_t nslots, count;
    size_t bytes, max_bytes;
    int64_t hits, misses;
};

enum { MEMO_SLOTS = 1024 };

Memo *memo_new(size_t max_bytes)
{
    Memo *mc = calloc(1, sizeof *mc);
    if (!mc || !(mc->slots = calloc(MEMO_SLOTS, sizeof *mc->slots)))
        abort();
    mc->nslots = MEMO_SLOTS;
    mc->max_bytes = max_bytes;
    return mc;
}

static void tensors_free(Tensor **ts, int n)
{
    if (!ts)
        return;
    for (int i = 0; i < n; i++)
        tensor_free(ts[i]);
    free(ts);
}

void memo_free(Memo *mc)
{
    if (!mc)
        return;
    for (size_t s = 0; s < mc->nslots; s++)
        for (Entry *e = mc->slots[s], *next; e; e = next) {
            next = e->next;
            tensors_free(e->before, e->n);
            tensors_free(e->after, e->n);
            free(e->text);
            free(e);
        }
    free(mc->slots);
    free(mc);
}

static size_t tensor_bytes(const Tensor *t)
{
    return (size_t)t->count * (size_t)dtype_size(t->dtype);
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

static uint64_t key_hash(const char *text, Tensor *const *args, int n)
{
    uint64_t h = mix(0xcbf29ce484222325ull, text, strlen(text));
    for (int i = 0; i < n; i++) {
        h = mix(h, &args[i]->dtype, sizeof args[i]->dtype);
        h = mix(h, args[i]->shape, (size_t)args[i]->ndim * sizeof *args[i]->shape);
        h = mix(h, args[i]->data, tensor_bytes(args[i]));
    }
    return h;
}

static int same_tensor(const Tensor *a, const Tensor *b)
{
    return a->dtype == b->dtype && a->ndim == b->ndim &&
           memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape) == 0 &&
           memcmp(a->data, b->data, tensor_bytes(a)) == 0;
}

int memo_replay(Memo *mc, const char *text, Tensor **args, int n)
{
    uint64_t h = key_hash(text, args, n);
    for (Entry *e = mc->slots[h % mc->nslots]; e; e = e->next) {
        if (e->hash != h || e->n != n || strcmp(e->text, text))
            continue;
        int same = 1;
        for (int i = 0; i < n && same; i++)
            same = same_tensor(e->before[i], args[i]);
        if (!same)
            continue;
        for (int i = 0; i < n; i++)
            if (e->after[i])
                memcpy(args[i]->data, e->after[i]->data, tensor_bytes(args[i]));
        mc->hits++;
        return 1;
    }
    mc->misses++;
    return 0;
}

Tensor **memo_before(Memo *mc, Tensor *const *args, int n)
{
    size_t need = 0;
    for (int i = 0; i < n; i++)
        need += 2 * tensor_bytes(args[i]);   /* before, and after at most */
    if (mc->bytes + need > mc->max_bytes)
        return NULL;
    Tensor **b = calloc((size_t)n + 1, sizeof *b);
    if (!b)
        abort();
    for (int i = 0; i < n; i++)
        if (!(b[i] = tensor_clone(args[i]))) {
            tensors_free(b, i);
            return NULL;
        }
    return b;
}

void memo_record(Memo *mc, const char *text, Tensor **before, Tensor *const *args, int n, int ok)
{
    if (!before)
        return;
    Entry *e = ok ? calloc(1, sizeof *e) : NULL;
    Tensor **after = ok ? calloc((size_t)n + 1, sizeof *after) : NULL;
    char *t = ok ? strdup(text) : NULL;
    if (!e || !after || !t) {
        free(e);
        free(after);
        free(t);
        tensors_free(before, n);
        return;
    }
    size_t bytes = 0;
    for (int i = 0; i < n; i++) {
        bytes += tensor_bytes(before[i]);
        if (!same_tensor(before[i], args[i])) {
            if (!(after[i] = tensor_clone(args[i]))) {
                tensors_free(after, i);
                tensors_free(before, n);
                free(e);
                free(t);
                return;
            }
            bytes += tensor_bytes(after[i]);
        }
    }
    e->hash = key_hash(text, before, n);
    e->text = t;
    e->n = n;
    e->before = before;
    e->after = after;
    e->next = mc->slots[e->hash % mc->nslots];
    mc->slots[e->hash % mc->nslots] = e;
    mc->count++;
    mc->bytes += bytes;
}

void memo_counts(const Memo *mc, int64_t *hits, int64_t *misses)
{
    *hits = mc->hits;
    *misses = mc->misses;
}
