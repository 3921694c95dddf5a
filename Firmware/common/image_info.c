#include "image_info.h"

#if defined(SELFTEST)
#include "selftest_table.h"
#define INFO_TABLE_WORDS SELFTEST_TABLE_WORDS
#define INFO_TABLE_CRC32 SELFTEST_TABLE_CRC32
#else
#define INFO_TABLE_WORDS 0u
#define INFO_TABLE_CRC32 0u
#endif

__attribute__((used, section(".image_info"))) const struct image_info image_info = {
    .magic = IMAGE_INFO_MAGIC,
    .table_words = INFO_TABLE_WORDS,
    .table_crc32 = INFO_TABLE_CRC32,
    .id = IMAGE_ID,
    .version = IMAGE_VERSION,
};
