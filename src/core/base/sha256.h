/* sha256.h: SHA-256 (FIPS 180-4) of a file, for the provenance of plug-in models: a result
 * file records the checksum of the library that computed it, and --resume refuses another. */
#ifndef IMPACTSWEEP_SHA256_H
#define IMPACTSWEEP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The digest of data[0 .. size) as 64 lowercase hex digits and a NUL. */
void is_sha256_hex(const void *data, size_t size, char hex[65]);

/* The digest of the file at `path`, read in blocks; IS_IO with a message naming the file
 * when it cannot be read. */
is_code is_sha256_file(const char *path, char hex[65], is_error *err);

/* The same for an open file, read with pread from its start (`name` for messages). */
is_code is_sha256_fd(int fd, const char *name, char hex[65], is_error *err);

#endif
