#ifndef STATION_ASSETS_H
#define STATION_ASSETS_H

/// A file of the station's page compiled into the executable: its path under web/, and its bytes.
typedef struct {
    const char *name;
    const unsigned char *data;
    unsigned long size;
} nrf_station_asset;

/// The number of embedded assets.
unsigned long nrf_station_asset_count(void);

/// The embedded asset at `index` (0 ..< nrf_station_asset_count()).
const nrf_station_asset *nrf_station_asset_get(unsigned long index);

#endif
