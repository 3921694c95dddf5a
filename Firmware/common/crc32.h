#ifndef CRC32_H
#define CRC32_H

#include <stdint.h>

/*
 * CRC-32 as zlib computes it (reflected polynomial 0xEDB88320, initial value
 * and final XOR 0xFFFFFFFF) over `count` little-endian words, read through a
 * volatile pointer so the compiler cannot fold the check away.
 */
uint32_t crc32_words(const volatile uint32_t *words, uint32_t count);

#endif
