#include "crc32.h"

uint32_t crc32_words(const volatile uint32_t *words, uint32_t count)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < count; i++) {
        crc ^= words[i]; /* little-endian: the word's low byte is the first byte in flash */
        for (unsigned bit = 0; bit < 32u; bit++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}
