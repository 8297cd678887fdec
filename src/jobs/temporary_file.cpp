// src/jobs/temporary_file.cpp — see temporary_file.hpp.
#include "jobs/temporary_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace bloomkit::jobs {

std::string temporary_directory() {
    const char* tmp = std::getenv("TMPDIR");
    return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

os::file_descriptor unnamed_temporary_file() { return unnamed_temporary_file(temporary_directory()); }

os::file_descriptor unnamed_temporary_file(const std::string& directory) {
    os::file_descriptor file(::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (file.get() >= 0) return file;
    std::string name = directory + "/bloomkit-spool-XXXXXX";  // no O_TMPFILE here: unlink at once
    file = os::file_descriptor(::mkstemp(name.data()));
    if (file.get() < 0) os::throw_io("cannot create a temporary file in", directory);
    ::unlink(name.c_str());
    return file;
}

}  // namespace bloomkit::jobs
