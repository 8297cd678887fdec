// src/cli/support/messages.cpp — see messages.hpp.
#include "messages.hpp"

#include "jobs/line_keys.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/threads_unavailable.hpp"

namespace bloomkit::cli {

std::string command_message(const std::exception& e) {
    if (const auto* number = dynamic_cast<const jobs::not_a_number*>(&e))
        return number->explained_by("--key " + std::string(to_string(number->format())));
    if (dynamic_cast<const jobs::filter_file_as_lines*>(&e) != nullptr)
        return std::string(e.what()) + ": to combine filters, use bloomkit merge";
    if (dynamic_cast<const jobs::threads_unavailable*>(&e) != nullptr) return std::string(e.what()) + ": use fewer (-t)";
    return e.what();
}

}  // namespace bloomkit::cli
