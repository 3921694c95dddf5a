// The catalog and its firmware images, compiled into the executable with C23 #embed, so that `nrfloader`
// copied alone to another machine still lists and uploads them (swift-stack.md §3: a resource bundle would
// not travel with the binary). Paths are relative to this file, so the build works from any directory,
// and clang lists them in its dependency file, so editing an image rebuilds the executable.
//
// A test (EmbeddedFilesTests) fails if a file in Resources/firmware is missing here or differs from disk.
#include "CatalogEmbedded.h"

static const unsigned char catalog_json[] = {
#embed "../../../catalog.json"
};
static const unsigned char blinky_pca10028[] = {
#embed "../../../Resources/firmware/blinky-pca10028.bin"
};
static const unsigned char blinky_pca10040[] = {
#embed "../../../Resources/firmware/blinky-pca10040.bin"
};
static const unsigned char blinky_pca10056[] = {
#embed "../../../Resources/firmware/blinky-pca10056.bin"
};
static const unsigned char blinky_pca10059[] = {
#embed "../../../Resources/firmware/blinky-pca10059.bin"
};
static const unsigned char selftest_pca10040[] = {
#embed "../../../Resources/firmware/selftest-pca10040.bin"
};
static const unsigned char selftest_nrf52840dk_mcuboot[] = {
#embed "../../../Resources/firmware/selftest-nrf52840dk-mcuboot.bin"
};

#define FILE_ENTRY(path, array) { path, array, sizeof(array) }

static const nrf_embedded_file files[] = {
    FILE_ENTRY("catalog.json", catalog_json),
    FILE_ENTRY("Resources/firmware/blinky-pca10028.bin", blinky_pca10028),
    FILE_ENTRY("Resources/firmware/blinky-pca10040.bin", blinky_pca10040),
    FILE_ENTRY("Resources/firmware/blinky-pca10056.bin", blinky_pca10056),
    FILE_ENTRY("Resources/firmware/blinky-pca10059.bin", blinky_pca10059),
    FILE_ENTRY("Resources/firmware/selftest-pca10040.bin", selftest_pca10040),
    FILE_ENTRY("Resources/firmware/selftest-nrf52840dk-mcuboot.bin", selftest_nrf52840dk_mcuboot),
};

unsigned long nrf_embedded_count(void) {
    return sizeof(files) / sizeof(files[0]);
}

const nrf_embedded_file *nrf_embedded_get(unsigned long index) {
    return index < nrf_embedded_count() ? &files[index] : 0;
}
