// src/jobs/threads_unavailable.hpp — the error of a job that cannot start the threads it was
// asked for (the system's limit on threads or memory): it names the number, so that the caller
// can say how to ask for fewer.
#pragma once

#include <string>
#include <system_error>

#include "bloomkit/error.hpp"

namespace bloomkit::jobs {

class threads_unavailable : public error {
public:
    threads_unavailable(unsigned threads, const std::system_error& why)
        : error("cannot start " + std::to_string(threads) + " threads (" + why.what() + ")"), threads_(threads) {}
    [[nodiscard]] unsigned threads() const noexcept { return threads_; }

private:
    unsigned threads_;
};

}  // namespace bloomkit::jobs
