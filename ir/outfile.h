/* Output files that appear whole or not at all: each is written to a
 * temporary file in its target's folder and renamed over the target only
 * once everything was written, so a failed run, a full disk or Ctrl-C
 * leaves the target as it was. Also: whether two paths name one file. */
#ifndef LOPT_OUTFILE_H
#define LOPT_OUTFILE_H

#include <stdio.h>

typedef struct OutFile {
    FILE *f;      /* where to write */
    char *path;   /* the target, as the rename gives it (symbolic links resolved) */
    char *tmp;    /* the temporary file, NULL when f writes the target itself */
} OutFile;

/* Opens a temporary file beside path (or path itself when it exists and is
 * not a regular file: a terminal, a pipe, /dev/null); 0, or -1 with errno. */
int outfile_open(OutFile *o, const char *path);

/* Flushes, closes and renames the temporary file over the target (keeping
 * an existing target's permissions); 0, or -1 with errno and the target
 * untouched. */
int outfile_commit(OutFile *o);

/* Closes and removes the temporary file; the target is untouched. */
void outfile_discard(OutFile *o);

/* Removes every temporary file opened and not yet committed or discarded,
 * in this process: safe to call from a signal handler (it calls unlink
 * alone), so that Ctrl-C leaves no partial output behind. */
void outfile_remove_pending(void);

/* 1 when a and b name the same file (by device and inode, or, for a file
 * not yet there, by its folder's and its own name), else 0. */
int outfile_same(const char *a, const char *b);

#endif
