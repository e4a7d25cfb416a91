/* Bump allocation in large chunks, freed all at once; an open hash table of
 * interned identifiers whose storage lives in the arena. */
#define _DEFAULT_SOURCE   /* madvise and MADV_HUGEPAGE */
#include "arena.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"
#include "oom.h"

/* Under AddressSanitizer, memory given back by arena_release is poisoned
 * until it is handed out again, so a pointer kept into a released scratch
 * or staging arena is reported where it is used. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Every node holds at most 8-byte members (pointers, int64, double). */
enum {
    ALIGN = 8, CHUNK_MIN = 64 * 1024, HUGE_PAGE = 2 * 1024 * 1024,
    HUGE_ADVISED = 32 * 1024 * 1024,          /* while the owner says what it expects (reading) */
    HUGE_ADVISED_AFTER = 512 * 1024 * 1024    /* after: a pass's walks over a large module */
};

/* Large chunks are aligned to huge pages. The first HUGE_ADVISED bytes of
 * them an arena takes are advised as such (MADV_HUGEPAGE): a module of
 * 100,000 bindings (25 MB) then takes a few hundred page faults instead of
 * several thousand, and reads in 13% less time. Past that they are not:
 * where huge pages are given only on advice, a fault on an advised chunk
 * zeroes 2 MB at once and may first compact memory to find them; after a
 * process that freed a few GB (mlir-opt-15 on the bench's chain), reading
 * 1,000,000 bindings took 430 to 560 ms of CPU time with 64 MB advised,
 * from one run to the next. A chunk of its own for one large block (exact)
 * is not rounded up to whole huge pages.
 * Once the owner no longer says what it expects (the reader has finished),
 * chunks are advised up to HUGE_ADVISED_AFTER: the passes walk a module of
 * 100,000 bindings some hundred times, and with 4 kB pages past the first
 * 32 MB flow,fold took 10% more time there (bench/chain-compare.py).
 * When the owner says how much it expects to allocate still (a->expect),
 * only the huge pages of a chunk it expects to fill are advised (a chunk for
 * one block fills whole): the last one touched would otherwise be resident
 * whole, up to 2 MB more than the module uses. Past HUGE_ADVISED, three
 * quarters of what it expects to fill of a chunk is faulted in at once
 * (MADV_POPULATE_WRITE), one call instead of a fault per page. */
static ArenaChunk *new_chunk(Arena *a, size_t cap, int exact)
{
    size_t bytes = sizeof(ArenaChunk) + cap + ARENA_TAIL;
    void *p = NULL;
    if (bytes >= HUGE_PAGE) {
        if (!exact)
            bytes = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
        if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
            p = NULL;
        size_t more = p && a->expect && !exact ? a->expect(a->expect_data) : SIZE_MAX;
        int huge = p && a->advised + bytes <= (a->expect ? HUGE_ADVISED : HUGE_ADVISED_AFTER);
#ifdef MADV_HUGEPAGE
        if (huge) {
            size_t advise = more < bytes ? more & ~(size_t)(HUGE_PAGE - 1) : bytes;
            if (advise)
                madvise(p, advise, MADV_HUGEPAGE);
            a->advised += bytes;
        }
#endif
#ifdef MADV_POPULATE_WRITE
        if (p && !huge && more != SIZE_MAX) {
            size_t fill = more / 4 * 3;
            if (fill > bytes)
                fill = bytes;
            if (fill >= HUGE_PAGE)
                madvise(p, fill, MADV_POPULATE_WRITE);   /* where the kernel lacks it, pages fault as before */
        }
#endif
        cap = bytes - sizeof(ArenaChunk) - ARENA_TAIL;
    } else {
        p = malloc(bytes);
    }
    ArenaChunk *c = p;
    if (c) {
        int refused;
        c->cap = cap;
        c->used = 0;
        c->budget = mem_charge(sizeof(ArenaChunk) + cap + ARENA_TAIL, 0, &refused);
    }
    return c;
}

static void chunk_free(ArenaChunk *c)
{
    if (c)
        mem_uncharge(sizeof(ArenaChunk) + c->cap + ARENA_TAIL, c->budget);
    free(c);
}

static void *oom(void)
{
    oom_fail();
}

void *arena_alloc_slow(Arena *a, size_t size)
{
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    ArenaChunk *c = a->head;
    if (!c || c->cap - c->used < size) {
        /* Chunks double as the arena grows; a block larger than the next
         * doubling (a big constant's data) gets a chunk of its own, of its
         * size, and the doubling goes on from the chunk before it. */
        size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN, last = a->grown;
        int grow = last && last < 16 * 1024 * 1024 && size <= last * 2;
        if (grow)
            cap = last * 2 > cap ? last * 2 : cap;
        int own = !grow && size > CHUNK_MIN;
        if (a->spare && a->spare->cap >= size) {
            c = a->spare;
            a->spare = NULL;
            c->used = 0;
        } else {
            c = new_chunk(a, cap, own);
            if (c && !own)
                a->grown = c->cap;
        }
        if (!c)
            return oom();
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    UNPOISON(p, size);
    c->used += size;
    a->used += size;
    return p;
}

void *arena_array(Arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size / 2)
        return NULL;
    size_t bytes = n * size;
    return arena_zalloc(a, bytes ? bytes : 1);
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void arena_free(Arena *a)
{
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *next = c->next;
        chunk_free(c);
        c = next;
    }
    if (a->spare)
        UNPOISON(a->spare->data, a->spare->cap);
    chunk_free(a->spare);
    a->spare = NULL;
    a->head = NULL;
    a->used = 0;
    a->grown = 0;
    a->advised = 0;
}

static void arena_free_v(void *a)
{
    arena_free(a);
}

void arena_scratch(Arena *a)
{
    oom_defer(arena_free_v, a);
}

void arena_scratch_end(Arena *a)
{
    oom_keep(a);
    arena_free(a);
}

void arena_discard(void *p, size_t n)
{
#if defined(__SANITIZE_ADDRESS__)
    POISON(p, n);
#else
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return;
    uintptr_t from = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t to = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
    if (to > from)
        madvise((void *)from, to - from, MADV_DONTNEED);
#endif
}

int arena_holds(const Arena *a, const void *p)
{
    for (const ArenaChunk *c = a->head; c; c = c->next)
        if ((const char *)p >= (const char *)c->data && (const char *)p < (const char *)c->data + c->used)
            return 1;
    return 0;
}

ArenaMark arena_mark(const Arena *a)
{
    ArenaMark m = { a->head, a->head ? a->head->used : 0 };
    return m;
}

void arena_release(Arena *a, ArenaMark m)
{
    while (a->head && a->head != m.chunk) {
        ArenaChunk *c = a->head;
        a->head = c->next;
        a->used -= c->used;
        if (!a->spare || a->spare->cap < c->cap) {
            if (a->spare)
                UNPOISON(a->spare->data, a->spare->cap);
            chunk_free(a->spare);
            POISON(c->data, c->cap);
            a->spare = c;
        } else {
            chunk_free(c);
        }
    }
    if (a->head) {
        a->used -= a->head->used - m.used;
        POISON((char *)a->head->data + m.used, a->head->used - m.used);
        a->head->used = m.used;
    }
}

/* FNV-1a over the name without its last digits, plus the number they
 * spell: lv0, lv1, lv2, ... (a module's bindings, defined in order) land in
 * neighbouring slots, so looking up a new one reads the cache line the one
 * before it brought in, not a random line of a table of megabytes. The
 * digits may be followed by up to four other characters, as the names a
 * pass makes are (lv1_t, lv2_t, ... from lv1, lv2, ...); the hash then takes
 * those after the digits' place. The table is open (a name is in the first
 * empty slot of its probe sequence), and a sequence leaves its first slot
 * by a stride drawn from the hash, so a name whose first slot falls in such
 * a run does not walk along it. (lv1 and lv01 hash alike, so do lv1_t and
 * lv01_t; the comparison tells them apart.) */
static uint32_t hash_bytes(const char *s, size_t n)
{
    size_t e = n;   /* the end of the digits */
    while (e > 0 && n - e < 4 && (s[e - 1] < '0' || s[e - 1] > '9'))
        e--;
    if (e == 0 || s[e - 1] < '0' || s[e - 1] > '9')
        e = n;   /* no digits among the last five characters */
    size_t k = e;
    while (k > 0 && e - k < 9 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    uint32_t h = 2166136261u, num = 0;
    for (size_t i = 0; i < k; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    for (size_t i = e; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    for (size_t i = k; i < e; i++)
        num = num * 10 + (uint32_t)(s[i] - '0');
    return h + num;
}

/* The stride of a probe sequence: odd, so that it visits every slot of the
 * power-of-two table, and from the hash's high bits. */
static size_t stride(uint32_t h)
{
    return ((size_t)((h * 2654435761u) >> 7) | 1);
}

void intern_init(Interner *in, Arena *a)
{
    in->arena = a;
    in->nslots = 1024;
    in->count = 0;
    in->slots = calloc(in->nslots, sizeof *in->slots);
    if (!in->slots)
        oom();
}

/* Rehashes into n slots (a power of two). */
static void resize(Interner *in, size_t n)
{
    Sym **slots = calloc(n, sizeof *slots);
    if (!slots)
        oom();
    for (size_t i = 0; i < in->nslots; i++) {
        Sym *s = in->slots[i];
        if (!s)
            continue;
        size_t k = s->hash & (n - 1), step = stride(s->hash);
        while (slots[k])
            k = (k + step) & (n - 1);
        slots[k] = s;
    }
    free(in->slots);
    in->slots = slots;
    in->nslots = n;
}

void intern_reserve(Interner *in, size_t names)
{
    size_t n = in->nslots;
    /* at most 2^40 slots, and no more than size_t counts (32 bits in WebAssembly) */
    while (n / 2 < names && (uint64_t)n < ((uint64_t)1 << 40) && n <= SIZE_MAX / 4)
        n *= 2;
    if (n > in->nslots)
        resize(in, n);
}

static int same_name(const Sym *p, const char *s, size_t n)
{
    if (p->len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (p->str[i] != s[i])
            return 0;
    return 1;
}

Sym *intern(Interner *in, const char *s, size_t n)
{
    uint32_t h = hash_bytes(s, n);
    size_t mask = in->nslots - 1, k = h & mask, step = stride(h);
    for (Sym *p; (p = in->slots[k]); k = (k + step) & mask)
        if (p->hash == h && same_name(p, s, n))
            return p;
    if ((in->count + 1) * 2 > in->nslots) {
        resize(in, in->nslots * 2);
        mask = in->nslots - 1;
        for (k = h & mask; in->slots[k]; k = (k + step) & mask)
            ;
    }
    Sym *p = sym_new(in->arena, s, n);
    p->hash = h;
    in->slots[k] = p;
    in->count++;
    return p;
}

Sym *sym_new(Arena *a, const char *s, size_t n)
{
    Sym *p = arena_alloc(a, offsetof(Sym, str) + n + 1);
    memset(p, 0, offsetof(Sym, str));
    memcpy(p->str, s, n);
    p->str[n] = 0;
    p->len = (uint32_t)n;
    return p;
}

Sym *intern_cstr(Interner *in, const char *s)
{
    return intern(in, s, strlen(s));
}

void intern_free(Interner *in)
{
    free(in->slots);
    in->slots = NULL;
}

static void intern_free_v(void *in)
{
    intern_free(in);
}

void intern_scratch(Interner *in, Arena *a)
{
    in->slots = NULL;   /* freed as it is if intern_init's own table cannot be had */
    oom_defer(intern_free_v, in);
    intern_init(in, a);
}

void intern_scratch_end(Interner *in)
{
    oom_keep(in);
    intern_free(in);
}
