// bloomkit/version.hpp — the version of bloomkit, read from here by CMake, pkg-config, the Debian
// and Python packages and `bloomkit --version`. Semantic versioning (CHANGELOG.md).
#pragma once

#define BLOOMKIT_VERSION_MAJOR 0
#define BLOOMKIT_VERSION_MINOR 3
#define BLOOMKIT_VERSION_PATCH 0
#define BLOOMKIT_VERSION_STRING "0.3.0"

namespace bloomkit {

/// The version, "MAJOR.MINOR.PATCH".
inline constexpr const char* version = BLOOMKIT_VERSION_STRING;

}  // namespace bloomkit
