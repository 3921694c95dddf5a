#ifndef BUILD_INFO_H
#define BUILD_INFO_H

/// The release version: the repository's VERSION file as it is (ending in a newline).
const char *nrf_build_version(void);

/// The commit the executable was built from (`cde43ed`, or `cde43ed-dirty` with uncommitted changes), or the
/// empty string when the build did not record one (the file as written, ending in a newline).
const char *nrf_build_commit(void);

#endif
