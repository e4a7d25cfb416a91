/* Reading a module: lex, parse and lower the text of src into a new Module.
 * Returns NULL after reporting the first errors through src. */
#ifndef LOPT_READER_H
#define LOPT_READER_H

#include "../ir/ir.h"

Module *read_module(Source *src);

#endif
