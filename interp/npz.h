/* The constants of TVM's metadata section, from a side file: a directory of
 * 0.npy, 1.npy, ... or an .npz archive as np.savez writes it (a zip of
 * stored, uncompressed arr_0.npy, arr_1.npy, ... or 0.npy, 1.npy, ...). */
#ifndef LOPT_NPZ_H
#define LOPT_NPZ_H

#include "../grammar/reader.h"

/* Opens path and counts its constants; fills k (whose ctx the file is).
 * Returns -1 with a message in err when path is missing or not an archive
 * lopt reads (a compressed one among them). */
int constants_open(Constants *k, const char *path, char *err, size_t errlen);
void constants_close(Constants *k);

#endif
