// src/jobs/temporary_file.hpp — scratch files a job needs for a while and never leaves behind:
// an input spooled to be read twice, digests kept until an update may begin, the partitions of an
// exact job. Unnamed: a file is gone when closed, or when the process ends however it ends
// (kill -9 included), so no run ever leaves one behind.
#pragma once

#include <string>

#include "bloomkit/os/file.hpp"

namespace bloomkit::jobs {

/// An unnamed temporary file in $TMPDIR (or /tmp), open for reading and writing: gone when
/// closed, whatever happens (O_TMPFILE; where the file system has none, a named one unlinked at
/// once). Throws io_error naming the directory.
os::file_descriptor unnamed_temporary_file();

/// The same in `directory`.
os::file_descriptor unnamed_temporary_file(const std::string& directory);

/// $TMPDIR, or /tmp when it is unset or empty.
std::string temporary_directory();

}  // namespace bloomkit::jobs
