// The station's page (HTML, CSS, JavaScript, written by hand: no build step) and its OpenAPI document, compiled into
// the executable with C23 #embed like the catalog, so that `nrfloader serve` copied alone to a box still serves its
// page. Paths are relative to this file; clang lists them in its dependency file, so editing one rebuilds.
#include "StationAssets.h"

static const unsigned char index_html[] = {
#embed "web/index.html"
};
static const unsigned char station_css[] = {
#embed "web/station.css"
};
static const unsigned char station_js[] = {
#embed "web/station.js"
};
static const unsigned char openapi_json[] = {
#embed "web/openapi.json"
};

#define ASSET(path, array) { path, array, sizeof(array) }

static const nrf_station_asset assets[] = {
    ASSET("index.html", index_html),
    ASSET("station.css", station_css),
    ASSET("station.js", station_js),
    ASSET("openapi.json", openapi_json),
};

unsigned long nrf_station_asset_count(void) { return sizeof(assets) / sizeof(assets[0]); }

const nrf_station_asset *nrf_station_asset_get(unsigned long index) {
    return index < nrf_station_asset_count() ? &assets[index] : 0;
}
