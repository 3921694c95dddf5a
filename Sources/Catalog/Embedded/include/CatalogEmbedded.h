#ifndef CATALOG_EMBEDDED_H
#define CATALOG_EMBEDDED_H

/// A file compiled into the executable: its path relative to the repository root, and its bytes.
typedef struct {
    const char *name;
    const unsigned char *data;
    unsigned long size;
} nrf_embedded_file;

/// The number of embedded files.
unsigned long nrf_embedded_count(void);

/// The embedded file at `index` (0 ..< nrf_embedded_count()).
const nrf_embedded_file *nrf_embedded_get(unsigned long index);

#endif
