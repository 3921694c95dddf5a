/*
 * A small record placed right after the vector table, so a flash dump or a
 * .bin names the image it came from. The self-test also keeps its expected
 * table CRC here.
 */
#ifndef IMAGE_INFO_H
#define IMAGE_INFO_H

#include <stdint.h>

#define IMAGE_INFO_MAGIC 0x4C46524Eu /* "NRFL" in flash byte order */

struct image_info {
    uint32_t magic;
    uint32_t table_words;  /* self-test table length in 32-bit words; 0 for other images */
    uint32_t table_crc32;  /* CRC-32 (zlib) of the self-test table; 0 for other images */
    char id[32];           /* catalog id, NUL-padded */
    char version[16];      /* image version string, NUL-padded */
};

extern const struct image_info image_info;

#endif
