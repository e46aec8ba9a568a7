/* crc32c.h: CRC-32C (Castagnoli), the checksum of every stored point of a result file and
 * of its fixed bytes (results.h). The polynomial of iSCSI, ext4 and Btrfs: it detects
 * every error of up to 5 bits in a message of up to 5,243 bits (a point's record is at most
 * 4,200), and every single-bit error in a message of any length, which makes a single
 * flipped bit locatable from the checksum alone. x86-64 computes it in hardware (SSE4.2,
 * chosen at run time, so that a build for plain x86-64 uses it too); elsewhere a table
 * gives the same bits. */
#ifndef IMPACTSWEEP_CRC32C_H
#define IMPACTSWEEP_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of data[0 .. size - 1] continued from crc (0 to start), chainable as zlib's
 * crc32: is_crc32c(is_crc32c(0, a), b) is the CRC of a followed by b. */
uint32_t is_crc32c(uint32_t crc, const void *data, size_t size);

/* --- many short messages side by side (a point's record each) ---------------------------
 * In a running state (the CRC's register, before its final inversion): begin with
 * is_crc32c_start, continue with is_crc32c_numbers, end with is_crc32c_finish; the states
 * are then is_crc32c(0, the message). */

/* states[i] begins message i with the 8 little-endian bytes of first + i. */
void is_crc32c_start(uint32_t *states, uint64_t first, size_t n);
/* Each message continues with one little-endian number of `size` bytes (1, 4 or 8):
 * values holds uint8_t, uint32_t or uint64_t (any type of that size, as bits). */
void is_crc32c_numbers(uint32_t *states, const void *values, size_t size, size_t n);
void is_crc32c_finish(uint32_t *states, size_t n);

/* The same in one pass, messages of `columns` numbers each: checks[i] = the CRC-32C of the
 * 8 bytes of first + i, then columns[c][i] (sizes[c] bytes, little-endian) for each c. */
void is_crc32c_records(uint32_t *checks, uint64_t first, size_t n, const void *const *columns,
                       const size_t *sizes, size_t column_count);

#endif
