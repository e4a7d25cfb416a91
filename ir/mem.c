/* The memory budget of a run: a thread's current budget and the ids that
 * tie an allocation to the budget it was counted under, so one freed after
 * its run ended (a result the caller keeps) counts against nothing. */
#include <stdatomic.h>
#include <unistd.h>

#include "mem.h"

static _Thread_local MemBudget *current;
static atomic_uint_fast64_t next_id = 1;

size_t mem_physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0 || (size_t)pages > SIZE_MAX / (size_t)size)
        return SIZE_MAX;
    return (size_t)pages * (size_t)size;
}

void mem_enter(MemBudget *b, size_t max)
{
    b->max = max;
    b->used = 0;
    b->refused = 0;
    b->held = 0;
    b->id = atomic_fetch_add(&next_id, 1);
    b->outer = current;
    current = b;
}

void mem_leave(MemBudget *b)
{
    if (current == b)
        current = b->outer;
}

uint64_t mem_charge(size_t bytes, int may_refuse, int *refused)
{
    MemBudget *b = current;
    *refused = 0;
    if (!b)
        return 0;
    if (may_refuse && bytes >= MEM_REFUSABLE && bytes > b->max - (b->used < b->max ? b->used : b->max)) {
        b->refused = bytes;
        b->held = b->used;
        *refused = 1;
        return 0;
    }
    b->used += bytes;
    return b->id;
}

void mem_uncharge(size_t bytes, uint64_t id)
{
    for (MemBudget *b = current; id && b; b = b->outer)
        if (b->id == id) {
            b->used -= bytes < b->used ? bytes : b->used;
            return;
        }
}
