// The version and the commit that `nrfloader --version` prints, compiled in with C23 #embed.
//
// VERSION, at the repository root, is the one place the version is written: scripts/deb.sh names the Debian
// package after the same file. The commit is in .build-info/commit, which scripts/build.sh writes from git just
// before its release build and removes afterwards (it touches this file so that the build reads it again). Any
// other build (a plain `swift build`, or a checkout without git) has no such file and says "unknown commit"
// rather than a commit it cannot know. Paths are relative to this file; clang lists embedded files in its
// dependency file, so a change to either one rebuilds this file.
#include "BuildInfo.h"

static const char version[] = {
#embed "../../VERSION"
    , 0};

#if __has_embed("../../.build-info/commit")
static const char commit[] = {
#embed "../../.build-info/commit"
    , 0};
#else
static const char commit[] = "";
#endif

const char *nrf_build_version(void) { return version; }

const char *nrf_build_commit(void) { return commit; }
