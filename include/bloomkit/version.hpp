// bloomkit/version.hpp — the version of bloomkit: the one number that CMake's project(), the
// pkg-config file, the CMake package, `bloomkit --version`, the Debian package and the Python
// package (bloomkit.__version__) all read from here. Semantic versioning; CHANGELOG.md says what
// each version changed.
#pragma once

#define BLOOMKIT_VERSION_MAJOR 0
#define BLOOMKIT_VERSION_MINOR 3
#define BLOOMKIT_VERSION_PATCH 0
#define BLOOMKIT_VERSION_STRING "0.3.0"

namespace bloomkit {

/// The version, "MAJOR.MINOR.PATCH".
inline constexpr const char* version = BLOOMKIT_VERSION_STRING;

}  // namespace bloomkit
