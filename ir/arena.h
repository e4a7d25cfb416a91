/* Arena allocation and identifier interning: one arena owns every node of a
 * module, and each identifier is stored once so names compare by pointer. */
#ifndef LOPT_ARENA_H
#define LOPT_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *head;
    ArenaChunk *spare;   /* the largest chunk released, kept for reuse */
    size_t used;     /* bytes handed out, for statistics */
    size_t grown;    /* the capacity of the last chunk grown by doubling */
    size_t advised;  /* bytes of chunks advised to be huge pages (arena.c) */
    /* While set (the reader, as it reads), the bytes the owner expects to
     * allocate still: a new chunk is advised to be huge pages only as far
     * as that (arena.c). */
    size_t (*expect)(const void *data);
    const void *expect_data;
} Arena;

/* A chunk: blocks are handed out from data[used], up to cap bytes; the
 * ARENA_TAIL bytes after cap are allocated but never handed out, so that a
 * block may be read a little past its end (a short expression, ir.h, copied
 * whole as an Expr). */
enum { ARENA_TAIL = 64 };
struct ArenaChunk {
    ArenaChunk *next;
    size_t cap, used;
    uint64_t budget;     /* the memory budget it counts under (ir/mem.h), or 0 */
    uint64_t data[];
};

void *arena_alloc_slow(Arena *a, size_t size);

/* The common case, a block that fits the current chunk, inline (reading a
 * large module allocates several nodes per binding). Under AddressSanitizer
 * every block goes through arena_alloc_slow, which unpoisons it. */
static inline void *arena_alloc(Arena *a, size_t size)
{
#if !defined(__SANITIZE_ADDRESS__)
    size = (size + 7) & ~(size_t)7;
    ArenaChunk *c = a->head;
    if (c && c->cap - c->used >= size) {
        void *p = (char *)c->data + c->used;
        c->used += size;
        a->used += size;
        return p;
    }
#endif
    return arena_alloc_slow(a, size);
}

static inline void *arena_zalloc(Arena *a, size_t size)
{
    void *p = arena_alloc(a, size);
    memset(p, 0, size);
    return p;
}
/* Allocates n elements of size each, or NULL when n * size overflows. */
void *arena_array(Arena *a, size_t n, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
void arena_free(Arena *a);
/* A scratch arena: freed by oom_fail if an allocation fails before
 * arena_scratch_end, which frees it (every return after arena_scratch must
 * pass through arena_scratch_end). */
void arena_scratch(Arena *a);
void arena_scratch_end(Arena *a);
/* The block p of n bytes, handed out by an arena, is not read again (an
 * array outgrown): its whole pages go back to the system, which gives
 * zeroed ones if they are touched again. Under AddressSanitizer they are
 * poisoned instead, so that a read of them is reported. */
void arena_discard(void *p, size_t n);
/* Whether p lies in a block a handed out (a walk over its chunks). */
int arena_holds(const Arena *a, const void *p);

/* A position in an arena; releasing to it frees everything allocated since. */
typedef struct ArenaMark {
    ArenaChunk *chunk;
    size_t used;
} ArenaMark;

ArenaMark arena_mark(const Arena *a);
void arena_release(Arena *a, ArenaMark m);

/* An interned identifier. `bind` and `bind_kind` belong to whoever resolves
 * names (the reader uses them as the current binding of the name). */
typedef struct Sym {
    uint32_t len;
    uint32_t hash;
    void *bind;
    int bind_kind;
    char str[];     /* the name's characters and a NUL, in the padding and
                     * past it (a large module interns a name per binding:
                     * lv123456 takes 32 bytes) */
} Sym;

typedef struct Interner {
    Arena *arena;
    Sym **slots;
    size_t nslots, count;
} Interner;

void intern_init(Interner *in, Arena *a);
Sym *intern(Interner *in, const char *s, size_t n);
Sym *intern_cstr(Interner *in, const char *s);
/* A name of n bytes at s in a, not interned (equal names are not the same Sym). */
Sym *sym_new(Arena *a, const char *s, size_t n);
/* Sizes the table for about `names` names, so reading them rehashes nothing. */
void intern_reserve(Interner *in, size_t names);
void intern_free(Interner *in);
/* A scratch interner over a scratch arena: its table is freed by oom_fail
 * if an allocation fails before intern_scratch_end, which frees it. */
void intern_scratch(Interner *in, Arena *a);
void intern_scratch_end(Interner *in);

#endif
