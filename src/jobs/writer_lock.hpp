// src/jobs/writer_lock.hpp — the writer lock of a filter file, as the jobs name it: the library's
// (bloomkit/os/writer_lock.hpp), which save() takes too.
#pragma once

#include "bloomkit/os/writer_lock.hpp"

namespace bloomkit::jobs {

using os::file_busy;
using os::writer_lock;

}  // namespace bloomkit::jobs
