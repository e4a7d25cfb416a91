/* Output files that appear whole or not at all (outfile.h). The temporary
 * files still open are kept in a small table of their own, the one state
 * the process shares, so that a signal handler can remove them. */
#define _XOPEN_SOURCE 700
#include "outfile.h"
#include "oom.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { PENDING_SLOTS = 16 };
static _Atomic(char *) pending[PENDING_SLOTS];
static atomic_uint tmp_counter;

static void pending_add(char *tmp)
{
    for (int i = 0; i < PENDING_SLOTS; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&pending[i], &none, tmp))
            return;
    }
}

static void pending_drop(const char *tmp)
{
    for (int i = 0; i < PENDING_SLOTS; i++) {
        char *want = (char *)tmp;
        if (atomic_compare_exchange_strong(&pending[i], &want, NULL))
            return;
    }
}

void outfile_remove_pending(void)
{
    for (int i = 0; i < PENDING_SLOTS; i++) {
        char *tmp = atomic_load(&pending[i]);
        if (tmp)
            unlink(tmp);
    }
}

/* The file a write to path reaches: path, or what its links resolve to. */
static char *resolved(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *r = realpath(path, NULL);
        if (r)
            return r;
    }
    return xstrdup(path);
}

/* "DIR/.NAME.lopt-PID-N": beside the target, so that the rename stays on
 * its file system; opened exclusively, with the mode a new file gets. A
 * NAME too long to take the suffix is left out of the temporary's name. */
static int open_temp(OutFile *o, mode_t mode)
{
    enum { SHORT_NAME = 200 };
    const char *slash = strrchr(o->path, '/');
    size_t dir = slash ? (size_t)(slash - o->path + 1) : 0, cap = strlen(o->path) + 64;
    const char *base = strlen(o->path + dir) <= SHORT_NAME ? o->path + dir : "";
    for (int tries = 0; tries < 100; tries++) {
        if (!(o->tmp = xmalloc(cap)))
            return -1;
        unsigned n = atomic_fetch_add(&tmp_counter, 1);
        snprintf(o->tmp, cap, "%.*s.%s.lopt-%ld-%u", (int)dir, o->path, base, (long)getpid(), n);
        int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) {
            pending_add(o->tmp);
            if ((o->f = fdopen(fd, "wb")))
                return 0;
            int e = errno;
            close(fd);
            outfile_discard(o);
            errno = e;
            return -1;
        }
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        if (e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

int outfile_open(OutFile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!(o->path = resolved(path)))
        return -1;
    struct stat st;
    int exists = stat(o->path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device, a pipe or a terminal cannot be replaced: write it as it is */
        if ((o->f = fopen(o->path, "wb")))
            return 0;
    } else if (open_temp(o, exists ? (st.st_mode & 07777) : 0666) == 0) {
        if (!exists || fchmod(fileno(o->f), st.st_mode & 07777) == 0)
            return 0;
        int e = errno;
        outfile_discard(o);
        errno = e;
        return -1;
    }
    int e = errno;
    free(o->path);
    o->path = NULL;
    errno = e;
    return -1;
}

int outfile_commit(OutFile *o)
{
    int bad = ferror(o->f) != 0;
    int e = bad ? EIO : 0;
    if (fflush(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (o->tmp && !bad && fsync(fileno(o->f)) != 0 && errno != EINVAL) {
        bad = 1;
        e = errno;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (o->tmp && !bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (o->tmp) {
        if (bad)
            unlink(o->tmp);
        pending_drop(o->tmp);
        free(o->tmp);
    }
    free(o->path);
    memset(o, 0, sizeof *o);
    errno = e;
    return bad ? -1 : 0;
}

void outfile_discard(OutFile *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        pending_drop(o->tmp);
        free(o->tmp);
    }
    free(o->path);
    memset(o, 0, sizeof *o);
}

/* What identifies the file path names: its device and inode, or, when it
 * is not there yet, its folder's and its last name. */
typedef struct FileKey {
    dev_t dev;
    ino_t ino;
    const char *name;   /* NULL for a file that exists */
    size_t len;
} FileKey;

static int file_key(const char *path, FileKey *k)
{
    struct stat st;
    memset(k, 0, sizeof *k);
    if (stat(path, &st) == 0) {
        k->dev = st.st_dev;
        k->ino = st.st_ino;
        return 0;
    }
    const char *slash = strrchr(path, '/');
    k->name = slash ? slash + 1 : path;
    k->len = strlen(k->name);
    char dir[PATH_MAX];
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else if ((size_t)(slash - path) < sizeof dir) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = 0;
        if (!dir[0])
            snprintf(dir, sizeof dir, "/");
    } else {
        return -1;
    }
    if (stat(dir, &st) != 0)
        return -1;
    k->dev = st.st_dev;
    k->ino = st.st_ino;
    return 0;
}

int outfile_same(const char *a, const char *b)
{
    FileKey ka, kb;
    if (file_key(a, &ka) || file_key(b, &kb))
        return strcmp(a, b) == 0;
    if (ka.dev != kb.dev || ka.ino != kb.ino || !ka.name != !kb.name)
        return 0;
    return !ka.name || (ka.len == kb.len && memcmp(ka.name, kb.name, ka.len) == 0);
}
