// src/cli/support/messages.hpp — how the command words the errors of the libraries it is made
// of. Their messages name values ("line 3 of 'keys.txt' is not a u64 number"); the command knows
// which of its options set the value, or which command to use instead, and says so.
#pragma once

#include <exception>
#include <string>

namespace bloomkit::cli {

/// What the command prints for `e` after "bloomkit: ": its what(), with the option or command
/// that a user changes to fix it where the error is one the command can name it for.
[[nodiscard]] std::string command_message(const std::exception& e);

}  // namespace bloomkit::cli
