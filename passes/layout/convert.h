/* What convert-layout tells flow (convert.c): which operators it chooses
 * layouts for, where flow stops and leaves the choice to it. */
#ifndef LOPT_CONVERT_H
#define LOPT_CONVERT_H

/* Whether convert-layout chooses layouts for calls of the operator name. */
int convert_layout_knows(const char *name);

#endif
