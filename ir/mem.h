/* The memory budget of a run (--max-memory): lopt's own count of the bytes
 * that tensors (interp/tensor.c) and arena chunks (ir/arena.c) allocated
 * on the calling thread while the budget was entered hold. A tensor of at
 * least MEM_REFUSABLE bytes that would pass the budget is refused; smaller
 * ones (scalars, shapes, which the interpreter makes where it does not
 * expect to fail) and arena chunks, which cannot be refused, are counted,
 * so the tensors after them are refused. */
#ifndef LOPT_MEM_H
#define LOPT_MEM_H

#include <stddef.h>
#include <stdint.h>

enum { MEM_REFUSABLE = 4096 };

typedef struct MemBudget {
    size_t max, used;
    size_t refused, held;  /* the size of the allocation refused (or 0), and what was held then */
    uint64_t id;           /* what the allocations counted under it carry */
    struct MemBudget *outer;
} MemBudget;

/* The machine's physical memory, the default budget (SIZE_MAX when unknown). */
size_t mem_physical(void);
/* Makes b, of max bytes, the calling thread's budget until mem_leave. */
void mem_enter(MemBudget *b, size_t max);
void mem_leave(MemBudget *b);
/* Counts bytes against the thread's budget: the id the allocation keeps
 * for mem_uncharge (0 when there is no budget), or 0 with nothing counted
 * and *refused set when may_refuse, bytes >= MEM_REFUSABLE and they do
 * not fit. */
uint64_t mem_charge(size_t bytes, int may_refuse, int *refused);
void mem_uncharge(size_t bytes, uint64_t id);

#endif
