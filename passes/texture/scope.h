/* What the memory-scope passes share (annotate-scope, realize-vdevice,
 * fold-scope-change; seed 003). */
#ifndef LOPT_SCOPE_H
#define LOPT_SCOPE_H

#include "../graph.h"

/* Gives each PrimFunc's buffer parameters the memory scopes of the values
 * its call sites pass and receive (their vdevices' scopes; a texture scope
 * also sets the buffer's axis separators: rows | columns | texel). A
 * PrimFunc whose call sites disagree is cloned, one copy per set of scopes.
 * Call sites that place nothing leave their callee as it is. */
void scope_follow_calls(Module *m, Notes *notes);

/* The memory scope of a tensor's vdevice, or NULL when it has none. */
const char *sinfo_scope(const StructInfo *si);

#endif
